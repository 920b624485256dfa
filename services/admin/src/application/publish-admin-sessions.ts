import { allAdminRoles } from '../persistence/admin-users';
import { findLiveSessions } from '../persistence/admin-sessions';
import type { AdminDeps } from './deps';

/**
 * Gives the gateway back its copy of every admin's roles and live sessions at start, so admins
 * stay signed in across a Redis that lost its data (or one that never had it: the first start
 * after the roles came in). Revocations are written first when sessions end, so a session ended
 * meanwhile is still refused.
 */
export async function publishAdminSessions(deps: Pick<AdminDeps, 'db' | 'revocations' | 'config'>): Promise<void> {
  const ttlSeconds = deps.config.ADMIN_TOKEN_TTL_SECONDS;
  for (const admin of await allAdminRoles(deps.db)) await deps.revocations.setAdminRoles(admin.id, admin.roles);
  const now = Date.now();
  for (const session of await findLiveSessions(deps.db, ttlSeconds)) {
    const left = Math.ceil((session.created_at.getTime() + ttlSeconds * 1000 - now) / 1000);
    if (left > 0) await deps.revocations.openAdminSession(session.admin_id, session.id, left);
  }
}
