import { isUuid, recordAudit, type AdminIdentity } from '@market/shared';
import { revokeAdminSession } from '../persistence/admin-sessions';
import type { AdminApp } from './admin-app';

/**
 * The gateway's revocation entry goes first: once it is written the token is dead, whatever
 * happens to the bookkeeping after it.
 */
export async function logOutAdmin(app: Pick<AdminApp, 'db' | 'events' | 'revocations' | 'config'>, identity: AdminIdentity) {
  await app.revocations.revokeSession('admin', identity.sid, app.config.ADMIN_TOKEN_TTL_SECONDS);
  if (!isUuid(identity.sid) || !isUuid(identity.sub)) return;
  await app.db.transaction(async (tx) => {
    const ended = await revokeAdminSession(tx, identity.sid, identity.sub);
    if (!ended) return;
    await recordAudit(app.events, tx, identity, {
      action: 'admin.logout',
      biz_type: 'admin_user',
      biz_id: identity.sub,
      detail: { session_id: identity.sid },
    });
  });
}
