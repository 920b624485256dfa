import type { AdminStatus } from '../domain/admin-user';
import { updateReturning, type Queryable } from '@market/shared';

export interface AdminUserRow {
  id: string;
  username: string;
  nickname: string;
  password_hash: string;
  status: AdminStatus;
  failed_logins: number;
  locked_until: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, username, nickname, password_hash, status, failed_logins, locked_until, created_at';

export async function findAdminByUsername(q: Queryable, username: string): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await q.query(`SELECT ${COLUMNS} FROM admin_users WHERE username = $1`, [username]);
  return rows[0] ?? null;
}

export async function findAdminById(q: Queryable, id: string): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await q.query(`SELECT ${COLUMNS} FROM admin_users WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Inserts the admin unless the username is taken; null means it was. */
export async function insertAdmin(
  q: Queryable,
  admin: { id: string; username: string; nickname: string; passwordHash: string },
): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await q.query(
    `INSERT INTO admin_users (id, username, nickname, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (username) DO NOTHING
     RETURNING ${COLUMNS}`,
    [admin.id, admin.username, admin.nickname, admin.passwordHash],
  );
  return rows[0] ?? null;
}

export async function countAdmins(q: Queryable): Promise<number> {
  const [{ count }] = await q.query(`SELECT count(*)::int AS count FROM admin_users`);
  return count;
}

/** Holds off every other writer of admin_users until the caller's transaction ends. */
export async function lockAdminUsersForWriting(q: Queryable) {
  await q.query(`LOCK TABLE admin_users IN EXCLUSIVE MODE`);
}

/**
 * Books one login attempt before the password is checked, in one statement, so parallel guesses
 * cannot all slip in before the lock: the attempt that reaches `maxFailures` sets the lock itself,
 * and a successful login lifts it again. False when the account is locked now. The counts are
 * computed from the row being updated (not from an earlier read), which is what keeps racing
 * attempts from overwriting each other; an expired lock starts a fresh count.
 */
export async function bookLoginAttempt(q: Queryable, id: string, maxFailures: number, lockoutMinutes: number): Promise<boolean> {
  const rows = await updateReturning<{ id: string }>(
    q,
    `UPDATE admin_users
     SET failed_logins = CASE WHEN locked_until IS NULL THEN failed_logins + 1 ELSE 1 END,
         locked_until = CASE
           WHEN (CASE WHEN locked_until IS NULL THEN failed_logins + 1 ELSE 1 END) >= $2 THEN now() + make_interval(mins => $3)
         END
     WHERE id = $1 AND (locked_until IS NULL OR locked_until <= now())
     RETURNING id`,
    [id, maxFailures, lockoutMinutes],
  );
  return rows.length > 0;
}

export async function clearLoginFailures(q: Queryable, id: string) {
  await q.query(`UPDATE admin_users SET failed_logins = 0, locked_until = NULL WHERE id = $1`, [id]);
}

export async function findActiveAdminByUsername(q: Queryable, username: string): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await q.query(`SELECT ${COLUMNS} FROM admin_users WHERE username = $1 AND status = 'active'`, [
    username,
  ]);
  return rows[0] ?? null;
}

/** At most two rows: enough to tell a unique nickname from an ambiguous one. */
export async function findActiveAdminsByNickname(q: Queryable, nickname: string): Promise<AdminUserRow[]> {
  return q.query(`SELECT ${COLUMNS} FROM admin_users WHERE nickname = $1 AND status = 'active' ORDER BY id LIMIT 2`, [nickname]);
}
