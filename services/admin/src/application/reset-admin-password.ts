import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { Forbidden, NotFound } from '@market/shared/errors';
import { recordAudit } from '@market/shared/events';
import { overwritePasswordHash } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { endSessionsOf } from './end-sessions';
import { adminUserEntry } from './admin-user-audit';

/**
 * An admin who manages admins sets another admin's password (forgotten, or possibly leaked). Every
 * session of that admin ends with the same commit: whoever knew the old password keeps nothing it
 * opened. One's own password is changed with the current one (changeOwnPassword), so a stolen
 * token cannot take its account over through this route. The password is hashed before the
 * transaction, which then only writes the hash, ends the sessions and audits.
 */
export async function resetAdminPassword(
  deps: Pick<AdminDeps, 'db' | 'events' | 'passwords' | 'revocations' | 'config'>,
  actor: AdminIdentity,
  adminId: string,
  password: string,
): Promise<void> {
  if (!isUuid(adminId)) throw new NotFound('admin not found');
  if (adminId === actor.sub) throw new Forbidden('change your own password with POST /api/admin/me/password');
  const newHash = await deps.passwords.hash(password);
  await deps.db.transaction(async (tx) => {
    const row = await overwritePasswordHash(tx, adminId, newHash);
    if (!row) throw new NotFound('admin not found');
    const sessionsEnded = await endSessionsOf(deps, tx, adminId, null);
    await recordAudit(deps.events, tx, actor, adminUserEntry('admin_user.reset_password', adminId, { username: row.username, sessions_ended: sessionsEnded }));
  });
}
