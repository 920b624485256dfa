import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { revokeAdminSession } from '../persistence/admin-sessions';
import type { AdminDeps } from './deps';
import { adminUserEntry } from './admin-user-audit';

/**
 * The gateway's revocation entry goes first: once it is written the token is dead, whatever
 * happens to the bookkeeping after it.
 */
export async function logOutAdmin(deps: Pick<AdminDeps, 'db' | 'events' | 'revocations' | 'config'>, identity: AdminIdentity) {
  await deps.revocations.revokeSession('admin', identity.sid, deps.config.ADMIN_TOKEN_TTL_SECONDS);
  if (!isUuid(identity.sid) || !isUuid(identity.sub)) return;
  await deps.db.transaction(async (tx) => {
    const ended = await revokeAdminSession(tx, identity.sid, identity.sub);
    if (!ended) return;
    await recordAudit(deps.events, tx, identity, adminUserEntry('admin.logout', identity.sub, { session_id: identity.sid }));
  });
}
