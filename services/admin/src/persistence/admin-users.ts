import type { AdminRole } from '@market/contracts';
import type { AdminStatus } from '../domain/admin-user';
import { keysetPage, NEWEST_FIRST, updateReturning, type KeysetPageResult, type Queryable } from '@market/shared/db';

export interface AdminUserRow {
  id: string;
  username: string;
  nickname: string;
  password_hash: string;
  status: AdminStatus;
  roles: AdminRole[];
  created_at: Date;
}

const COLUMNS = 'id, username, nickname, password_hash, status, roles, created_at';

export async function findAdminByUsername(db: Queryable, username: string): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await db.query(`SELECT ${COLUMNS} FROM admin_users WHERE username = $1`, [username]);
  return rows[0] ?? null;
}

export async function findAdminById(db: Queryable, id: string): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await db.query(`SELECT ${COLUMNS} FROM admin_users WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Inserts the admin unless the username is taken; null means it was. */
export async function insertAdmin(
  db: Queryable,
  admin: { id: string; username: string; nickname: string; passwordHash: string; roles: readonly AdminRole[] },
): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await db.query(
    `INSERT INTO admin_users (id, username, nickname, password_hash, roles) VALUES ($1, $2, $3, $4, $5::text[])
     ON CONFLICT (username) DO NOTHING
     RETURNING ${COLUMNS}`,
    [admin.id, admin.username, admin.nickname, admin.passwordHash, admin.roles],
  );
  return rows[0] ?? null;
}

export async function countAdmins(db: Queryable): Promise<number> {
  const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM admin_users`);
  return count;
}

/** Holds off every other writer of admin_users until the caller's transaction ends. */
export async function lockAdminUsersForWriting(db: Queryable) {
  await db.query(`LOCK TABLE admin_users IN EXCLUSIVE MODE`);
}

export async function findActiveAdminByUsername(db: Queryable, username: string): Promise<AdminUserRow | null> {
  const rows: AdminUserRow[] = await db.query(`SELECT ${COLUMNS} FROM admin_users WHERE username = $1 AND status = 'active'`, [
    username,
  ]);
  return rows[0] ?? null;
}

/** At most two rows: enough to tell a unique nickname from an ambiguous one. */
export async function findActiveAdminsByNickname(db: Queryable, nickname: string): Promise<AdminUserRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM admin_users WHERE nickname = $1 AND status = 'active' ORDER BY id LIMIT 2`, [nickname]);
}

/** One page of admins, newest first. */
export async function findAdminsPage(
  db: Queryable,
  status: AdminStatus | undefined,
  page: { cursor: string | undefined; limit: number },
): Promise<KeysetPageResult<AdminUserRow>> {
  const filtered = status !== undefined;
  return keysetPage<AdminUserRow>(db, {
    query: `SELECT ${COLUMNS} FROM admin_users ${filtered ? 'WHERE status = $1' : ''}`,
    params: filtered ? [status] : [],
    orderBy: NEWEST_FIRST,
    ...page,
  });
}

/**
 * The ids of the active admins, locked until the transaction ends (in id order, so two callers
 * never deadlock). Every status change that could leave nobody active takes these locks first,
 * which is what makes two admins disabling each other at once leave one of them active.
 * `NO KEY UPDATE` leaves the key-share locks of session inserts free; logins wait only through
 * their explicit `FOR SHARE` (see insertAdminSession).
 */
export async function lockActiveAdminIds(db: Queryable): Promise<string[]> {
  const rows: Array<{ id: string }> = await db.query(`SELECT id FROM admin_users WHERE status = 'active' ORDER BY id FOR NO KEY UPDATE`);
  return rows.map((r) => r.id);
}

/** The admin moved from one status to another, or null when it was not in `from`. */
export async function moveAdminStatus(db: Queryable, id: string, from: AdminStatus, to: AdminStatus): Promise<AdminUserRow | null> {
  const rows = await updateReturning<AdminUserRow>(
    db,
    `UPDATE admin_users SET status = $3, updated_at = now() WHERE id = $1 AND status = $2 RETURNING ${COLUMNS}`,
    [id, from, to],
  );
  return rows[0] ?? null;
}

/**
 * Compare-and-set on the hash that was verified: null when the password changed (or the admin was
 * disabled) since it was read, so a concurrent change is never silently overwritten.
 */
export async function replacePasswordHash(db: Queryable, id: string, verifiedHash: string, newHash: string): Promise<AdminUserRow | null> {
  const rows = await updateReturning<AdminUserRow>(
    db,
    `UPDATE admin_users SET password_hash = $3, updated_at = now()
     WHERE id = $1 AND password_hash = $2 AND status = 'active' RETURNING ${COLUMNS}`,
    [id, verifiedHash, newHash],
  );
  return rows[0] ?? null;
}

/** The admin with a password set by another admin (whatever the old one was), or null when there is no such admin. */
export async function overwritePasswordHash(db: Queryable, id: string, newHash: string): Promise<AdminUserRow | null> {
  const rows = await updateReturning<AdminUserRow>(db, `UPDATE admin_users SET password_hash = $2, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`, [
    id,
    newHash,
  ]);
  return rows[0] ?? null;
}

/** The admin with its roles replaced, or null when there is no such admin. */
export async function replaceAdminRoles(db: Queryable, id: string, roles: readonly AdminRole[]): Promise<AdminUserRow | null> {
  const rows = await updateReturning<AdminUserRow>(
    db,
    `UPDATE admin_users SET roles = $2::text[], updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, roles],
  );
  return rows[0] ?? null;
}

/** The ids of the active super admins, locked until the transaction ends (in id order). */
export async function lockActiveSuperAdminIds(db: Queryable): Promise<string[]> {
  const rows: Array<{ id: string }> = await db.query(
    `SELECT id FROM admin_users WHERE status = 'active' AND 'super_admin' = ANY (roles) ORDER BY id FOR NO KEY UPDATE`,
  );
  return rows.map((r) => r.id);
}

/** Every admin's id and roles, to give the gateway's copy back after Redis lost it. */
export async function allAdminRoles(db: Queryable): Promise<Array<{ id: string; roles: AdminRole[] }>> {
  return db.query(`SELECT id, roles FROM admin_users`);
}
