import { type Admin, type z } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { auditRefusal, recordAudit } from '@market/shared/events';
import { Conflict, InvalidInput } from '@market/shared/errors';
import { AdminDisabled, AdminNoLongerExists, CurrentPasswordWrong } from '../domain/errors';
import { findAdminById, replacePasswordHash } from '../persistence/admin-users';
import { admitLoginAttempt, loginAttempt, loginSucceeded } from './admit-login-attempt';
import type { AdminDeps } from './deps';
import { endSessionsOf } from './end-sessions';
import { adminView } from './views';
import { adminUserEntry } from './admin-user-audit';

/**
 * The caller changes its own password. The current one is checked like a login (booked on the
 * username first), so a stolen token cannot be used to guess it faster than the login allows.
 * Every other session ends: a password is changed when it may have leaked, and what was obtained
 * with the old one must not outlive it; the calling session stays so the caller is not thrown out.
 */
export async function changeOwnPassword(
  deps: Pick<AdminDeps, 'db' | 'events' | 'log' | 'passwords' | 'revocations' | 'config'>,
  identity: AdminIdentity,
  input: { current_password: string; new_password: string },
): Promise<z.infer<typeof Admin>> {
  if (input.new_password === input.current_password) {
    throw new InvalidInput([{ path: 'new_password', message: 'must differ from the current password' }]);
  }
  const admin = isUuid(identity.sub) ? await findAdminById(deps.db, identity.sub) : null;
  if (!admin) throw new AdminNoLongerExists();
  if (admin.status !== 'active') throw new AdminDisabled();

  const attempt = loginAttempt(admin.username, identity.ip);
  await admitLoginAttempt(deps, attempt, admin.id);
  if (!(await deps.passwords.verify(admin.password_hash, input.current_password))) {
    await auditRefusal(deps.db, deps.events, identity, adminUserEntry('admin.password_change', admin.id, { reason: 'wrong_current_password' }));
    throw new CurrentPasswordWrong();
  }
  await loginSucceeded(deps, attempt);

  const newHash = await deps.passwords.hash(input.new_password);
  return deps.db.transaction(async (tx) => {
    const row = await replacePasswordHash(tx, admin.id, admin.password_hash, newHash);
    if (!row) throw new Conflict('the password was changed or the account disabled meanwhile; try again');
    const sessionsEnded = await endSessionsOf(deps, tx, admin.id, isUuid(identity.sid) ? identity.sid : null);
    await recordAudit(deps.events, tx, identity, adminUserEntry('admin.password_change', admin.id, { sessions_ended: sessionsEnded }));
    return adminView(row);
  });
}
