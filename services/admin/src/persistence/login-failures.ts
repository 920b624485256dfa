import { updateReturning, type Queryable } from '@market/shared/db';

/** The longest an address is held off: holds double up to this. */
const MAX_HOLD_MINUTES = 24 * 60;

/**
 * Books one login attempt at a username from one client address before the password is checked,
 * in one statement, so parallel guesses cannot all slip in: the attempt that reaches `maxFailures`
 * holds the address off itself, for `holdMinutes` the first time and twice as long at each further
 * hold (up to a day), and a successful login removes the row. False while the address is held off.
 * Names no admin has are booked the same way, so the hold cannot be used to learn which exist.
 * Counts are computed from the row being written, never from an earlier read; an expired hold
 * starts a fresh count and keeps its number of holds.
 */
export async function bookLoginAttempt(
  db: Queryable,
  attempt: { username: string; address: string },
  maxFailures: number,
  holdMinutes: number,
): Promise<boolean> {
  const rows: Array<{ username: string }> = await db.query(
    `INSERT INTO admin_login_failures AS f (username, address, failed_logins, holds, locked_until)
     VALUES ($1, $2, 1, CASE WHEN 1 >= $3 THEN 1 ELSE 0 END, CASE WHEN 1 >= $3 THEN now() + make_interval(mins => $4) END)
     ON CONFLICT (username, address) DO UPDATE
     SET failed_logins = CASE WHEN f.locked_until IS NULL THEN f.failed_logins + 1 ELSE 1 END,
         holds = f.holds + CASE WHEN (CASE WHEN f.locked_until IS NULL THEN f.failed_logins + 1 ELSE 1 END) >= $3 THEN 1 ELSE 0 END,
         locked_until = CASE
           WHEN (CASE WHEN f.locked_until IS NULL THEN f.failed_logins + 1 ELSE 1 END) >= $3
           THEN now() + make_interval(mins => LEAST($4::bigint * (2::bigint ^ LEAST(f.holds, 20)), $5)::int)
         END,
         last_attempt_at = now()
     WHERE f.locked_until IS NULL OR f.locked_until <= now()
     RETURNING username`,
    [attempt.username, attempt.address, maxFailures, holdMinutes, MAX_HOLD_MINUTES],
  );
  return rows.length > 0;
}

export async function lockedUntil(db: Queryable, attempt: { username: string; address: string }): Promise<Date | null> {
  const rows: Array<{ locked_until: Date | null }> = await db.query(
    `SELECT locked_until FROM admin_login_failures WHERE username = $1 AND address = $2`,
    [attempt.username, attempt.address],
  );
  return rows[0]?.locked_until ?? null;
}

export type AccountAttempt = 'open' | 'locked' | 'locked_now';

/**
 * Books the attempt on the account over every address. Only at `lockAfter` failures in a row (far
 * above one address's budget: it takes many addresses) is the account itself locked; `locked_now`
 * is the attempt that locked it, for the alert. `locked` while a lock is in force.
 */
export async function bookAccountAttempt(db: Queryable, username: string, lockAfter: number, lockMinutes: number): Promise<AccountAttempt> {
  const rows: Array<{ locked_now: boolean }> = await db.query(
    `INSERT INTO admin_account_failures AS f (username, failed_logins, locked_until)
     VALUES ($1, 1, CASE WHEN 1 >= $2 THEN now() + make_interval(mins => $3) END)
     ON CONFLICT (username) DO UPDATE
     SET failed_logins = CASE WHEN f.locked_until IS NULL THEN f.failed_logins + 1 ELSE 1 END,
         locked_until = CASE
           WHEN (CASE WHEN f.locked_until IS NULL THEN f.failed_logins + 1 ELSE 1 END) >= $2 THEN now() + make_interval(mins => $3)
         END,
         last_attempt_at = now()
     WHERE f.locked_until IS NULL OR f.locked_until <= now()
     RETURNING locked_until IS NOT NULL AS locked_now`,
    [username, lockAfter, lockMinutes],
  );
  if (rows.length === 0) return 'locked';
  return rows[0]!.locked_now ? 'locked_now' : 'open';
}

export async function accountLockedUntil(db: Queryable, username: string): Promise<Date | null> {
  const rows: Array<{ locked_until: Date | null }> = await db.query(`SELECT locked_until FROM admin_account_failures WHERE username = $1`, [username]);
  return rows[0]?.locked_until ?? null;
}

/** A success: the address's count and the account's count start over; other addresses stay held. */
export async function clearLoginFailures(db: Queryable, attempt: { username: string; address: string }) {
  await db.query(`DELETE FROM admin_login_failures WHERE username = $1 AND address = $2`, [attempt.username, attempt.address]);
  await db.query(`DELETE FROM admin_account_failures WHERE username = $1`, [attempt.username]);
}

/**
 * Counts at names nobody has tried for a day go, so guessed names and addresses cannot fill the
 * tables; a hold or lock still in force stays.
 */
export async function forgetQuietLoginFailures(db: Queryable): Promise<number> {
  let removed = 0;
  for (const table of ['admin_login_failures', 'admin_account_failures']) {
    const rows = await updateReturning(
      db,
      `DELETE FROM ${table}
       WHERE last_attempt_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until <= now())
       RETURNING username`,
      [],
    );
    removed += rows.length;
  }
  return removed;
}
