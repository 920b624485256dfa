import { auditRefusal, isUuid, problems, recordAudit, type Admin, type AdminIdentity, type z } from '@market/shared';
import { secondsUntil } from '../domain/admin-user';
import { findAdminById, replacePasswordHash } from '../persistence/admin-users';
import { bookLoginAttempt, clearLoginFailures, lockedUntil } from '../persistence/login-failures';
import type { AdminApp } from './admin-app';
import { endSessionsOf } from './end-sessions';
import { adminView } from './views';

/**
 * The caller changes its own password. The current one is checked like a login (booked on the
 * username first), so a stolen token cannot be used to guess it faster than the login allows.
 * Every other session ends: a password is changed when it may have leaked, and what was obtained
 * with the old one must not outlive it; the calling session stays so the caller is not thrown out.
 */
export async function changeOwnPassword(
  app: Pick<AdminApp, 'db' | 'events' | 'passwords' | 'revocations' | 'config'>,
  identity: AdminIdentity,
  input: { current_password: string; new_password: string },
): Promise<z.infer<typeof Admin>> {
  if (input.new_password === input.current_password) {
    throw problems.validation([{ path: 'new_password', message: 'must differ from the current password' }]);
  }
  const admin = isUuid(identity.sub) ? await findAdminById(app.db, identity.sub) : null;
  if (!admin) throw problems.unauthenticated('this admin no longer exists');
  if (admin.status !== 'active') throw problems.forbidden('this admin account is disabled');

  const booked = await bookLoginAttempt(app.db, admin.username, app.config.ADMIN_LOGIN_MAX_FAILURES, app.config.ADMIN_LOCKOUT_MINUTES);
  if (!booked) {
    const until = await lockedUntil(app.db, admin.username);
    throw problems.rateLimited(until ? secondsUntil(until, new Date()) : 1);
  }
  if (!(await app.passwords.verify(admin.password_hash, input.current_password))) {
    await auditRefusal(app.db, app.events, identity, {
      action: 'admin.password_change',
      biz_type: 'admin_user',
      biz_id: admin.id,
      detail: { reason: 'wrong_current_password' },
    });
    throw problems.unprocessable('CURRENT_PASSWORD_INCORRECT', 'the current password is wrong');
  }
  await clearLoginFailures(app.db, admin.username);

  const newHash = await app.passwords.hash(input.new_password);
  return app.db.transaction(async (tx) => {
    const row = await replacePasswordHash(tx, admin.id, admin.password_hash, newHash);
    if (!row) throw problems.conflict('the password was changed or the account disabled meanwhile; try again');
    const sessionsEnded = await endSessionsOf(app, tx, admin.id, isUuid(identity.sid) ? identity.sid : null);
    await recordAudit(app.events, tx, identity, {
      action: 'admin.password_change',
      biz_type: 'admin_user',
      biz_id: admin.id,
      detail: { sessions_ended: sessionsEnded },
    });
    return adminView(row);
  });
}
