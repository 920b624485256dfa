import { updateReturning, type Queryable } from '@market/shared/db';

/**
 * Books one login attempt at a username before the password is checked, in one statement, so
 * parallel guesses cannot all slip in before the lock: the attempt that reaches `maxFailures` sets
 * the lock itself, and a successful login removes the row. False when the username is locked now.
 * Names no admin has are booked the same way, so the lockout cannot be used to learn which exist.
 * The counts are computed from the row being written (not from an earlier read), which is what
 * keeps racing attempts from overwriting each other; an expired lock starts a fresh count.
 */
export async function bookLoginAttempt(db: Queryable, username: string, maxFailures: number, lockoutMinutes: number): Promise<boolean> {
  const rows: Array<{ username: string }> = await db.query(
    `INSERT INTO admin_login_failures AS f (username, failed_logins, locked_until)
     VALUES ($1, 1, CASE WHEN 1 >= $2 THEN now() + make_interval(mins => $3) END)
     ON CONFLICT (username) DO UPDATE
     SET failed_logins = CASE WHEN f.locked_until IS NULL THEN f.failed_logins + 1 ELSE 1 END,
         locked_until = CASE
           WHEN (CASE WHEN f.locked_until IS NULL THEN f.failed_logins + 1 ELSE 1 END) >= $2 THEN now() + make_interval(mins => $3)
         END,
         last_attempt_at = now()
     WHERE f.locked_until IS NULL OR f.locked_until <= now()
     RETURNING username`,
    [username, maxFailures, lockoutMinutes],
  );
  return rows.length > 0;
}

export async function lockedUntil(db: Queryable, username: string): Promise<Date | null> {
  const rows: Array<{ locked_until: Date | null }> = await db.query(`SELECT locked_until FROM admin_login_failures WHERE username = $1`, [
    username,
  ]);
  return rows[0]?.locked_until ?? null;
}

export async function clearLoginFailures(db: Queryable, username: string) {
  await db.query(`DELETE FROM admin_login_failures WHERE username = $1`, [username]);
}

/**
 * Counts at names nobody has logged in with for a day go, so guessed names cannot fill the table;
 * a lock still in force stays.
 */
export async function forgetQuietLoginFailures(db: Queryable): Promise<number> {
  const removed = await updateReturning(
    db,
    `DELETE FROM admin_login_failures
     WHERE last_attempt_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until <= now())
     RETURNING username`,
    [],
  );
  return removed.length;
}
