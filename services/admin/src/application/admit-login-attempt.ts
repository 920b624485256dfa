import { auditRefusal } from '@market/shared/events';
import { addressKey } from '@market/shared/http';
import { secondsUntil } from '../domain/admin-user';
import { LoginLocked } from '../domain/errors';
import { accountLockedUntil, bookAccountAttempt, bookLoginAttempt, clearLoginFailures, lockedUntil } from '../persistence/login-failures';
import type { AdminDeps } from './deps';
import { adminUserEntry } from './admin-user-audit';

/** Where a password guess comes from: the username it is at and the client address (an IPv6 one's /64) it is from. */
export interface LoginAttempt {
  username: string;
  address: string;
}

export function loginAttempt(username: string, ip: string | null): LoginAttempt {
  return { username, address: addressKey(ip) };
}

/**
 * Books a password check before it runs (ADR 0034): the address is held off after
 * `ADMIN_LOGIN_MAX_FAILURES` failures in a row at this username (longer at each hold), and the
 * account itself is locked only after `ADMIN_ACCOUNT_LOCK_FAILURES` over every address, which
 * raises an alert. Either refusal is `429` with `Retry-After`, the same for a name nobody has.
 */
export async function admitLoginAttempt(
  deps: Pick<AdminDeps, 'db' | 'events' | 'log' | 'config'>,
  attempt: LoginAttempt,
  adminId: string | null,
): Promise<void> {
  const { ADMIN_LOGIN_MAX_FAILURES, ADMIN_LOCKOUT_MINUTES, ADMIN_ACCOUNT_LOCK_FAILURES } = deps.config;
  if (!(await bookLoginAttempt(deps.db, attempt, ADMIN_LOGIN_MAX_FAILURES, ADMIN_LOCKOUT_MINUTES))) {
    throw refusedUntil(await lockedUntil(deps.db, attempt));
  }
  const account = await bookAccountAttempt(deps.db, attempt.username, ADMIN_ACCOUNT_LOCK_FAILURES, ADMIN_LOCKOUT_MINUTES);
  if (account === 'locked') throw refusedUntil(await accountLockedUntil(deps.db, attempt.username));
  if (account === 'locked_now') {
    // Many addresses guessing at one name is an attack on it, not a user who forgot a password.
    deps.log.error(
      { alert: 'admin_account_locked', username: attempt.username, failures: ADMIN_ACCOUNT_LOCK_FAILURES, minutes: ADMIN_LOCKOUT_MINUTES },
      'admin account locked: failed logins from many addresses',
    );
    await auditRefusal(deps.db, deps.events, null, adminUserEntry('admin.account_locked', adminId, { username: attempt.username, failures: ADMIN_ACCOUNT_LOCK_FAILURES, minutes: ADMIN_LOCKOUT_MINUTES }));
  }
}

/** The password was right: this address's count and the account's start over. */
export function loginSucceeded(deps: Pick<AdminDeps, 'db'>, attempt: LoginAttempt) {
  return clearLoginFailures(deps.db, attempt);
}

function refusedUntil(until: Date | null) {
  return new LoginLocked(until ? secondsUntil(until, new Date()) : 1);
}
