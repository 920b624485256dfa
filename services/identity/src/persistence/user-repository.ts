import {
  keysetPage,
  NEWEST_FIRST,
  type Queryable,
  type Tx,
  type KeysetPageResult,
  updateReturning,
} from '@market/shared/db';
import { v7 as uuidv7 } from 'uuid';
import type { RealnameState } from '../domain/realname';

export interface UserRecord {
  id: string;
  phone: string | null;
  nickname: string;
  avatar_url: string | null;
  frozen: boolean;
  frozen_reason: string | null;
  frozen_at: Date | null;
  created_at: Date;
  realname_status: RealnameState;
}

export interface UserFilters {
  ids?: string[];
  phone?: string;
  frozen?: boolean;
  realname_status?: RealnameState;
}

const SELECT_USER = `
  SELECT u.id, u.phone, u.nickname, u.avatar_url, u.frozen, u.frozen_reason, u.frozen_at, u.created_at,
         COALESCE(r.status, 'unverified') AS realname_status
  FROM users u LEFT JOIN realname_verifications r ON r.user_id = u.id`;

/** `share` keeps a concurrent freeze waiting until the caller's new session is committed (or seen by it). */
type Lock = 'share' | 'none';

function lockClause(lock: Lock) {
  return lock === 'share' ? ' FOR SHARE OF u' : '';
}

export async function findUserById(db: Queryable, id: string, lock: Lock = 'none'): Promise<UserRecord | undefined> {
  const rows: UserRecord[] = await db.query(`${SELECT_USER} WHERE u.id = $1${lockClause(lock)}`, [id]);
  return rows[0];
}

export async function findUserByPhone(db: Queryable, phone: string, lock: Lock = 'none'): Promise<UserRecord | undefined> {
  const rows: UserRecord[] = await db.query(`${SELECT_USER} WHERE u.phone = $1${lockClause(lock)}`, [phone]);
  return rows[0];
}

/** Registers the phone unless it already is; the unique phone settles two first logins racing. */
export async function registerPhoneUser(tx: Tx, phone: string, nickname: string): Promise<boolean> {
  const inserted: unknown[] = await tx.query(
    `INSERT INTO users (id, phone, nickname) VALUES ($1, $2, $3) ON CONFLICT (phone) DO NOTHING RETURNING id`,
    [uuidv7(), phone, nickname],
  );
  return inserted.length > 0;
}

/** The ordinary user who publishes for one back-office admin; one per admin, by a unique constraint. */
export async function insertOrFindPublisher(
  tx: Tx,
  adminId: string,
  nickname: string,
): Promise<{ user: UserRecord; created: boolean }> {
  const inserted: unknown[] = await tx.query(
    `INSERT INTO users (id, publisher_for_admin_id, nickname) VALUES ($1, $2, $3)
     ON CONFLICT (publisher_for_admin_id) DO NOTHING RETURNING id`,
    [uuidv7(), adminId, nickname],
  );
  const rows: UserRecord[] = await tx.query(`${SELECT_USER} WHERE u.publisher_for_admin_id = $1`, [adminId]);
  return { user: rows[0]!, created: inserted.length > 0 };
}

/**
 * Every frozen user, each row held FOR SHARE until the transaction ends: an unfreeze running now is
 * waited for (and its user, no longer frozen, left out), and one that starts later waits for this
 * transaction to end.
 */
export async function lockFrozenUserIds(tx: Tx): Promise<string[]> {
  const rows: Array<{ id: string }> = await tx.query(`SELECT id FROM users WHERE frozen FOR SHARE`);
  return rows.map((r) => r.id);
}

/** The conditional move itself: only an unfrozen user can be frozen, so of two racing freezes one matches. */
export async function freezeIfActive(tx: Tx, id: string, reason: string): Promise<boolean> {
  const rows = await updateReturning(
    tx,
    `UPDATE users SET frozen = true, frozen_reason = $2, frozen_at = now() WHERE id = $1 AND NOT frozen RETURNING id`,
    [id, reason],
  );
  return rows.length > 0;
}

export async function unfreezeIfFrozen(tx: Tx, id: string): Promise<boolean> {
  const rows = await updateReturning(
    tx,
    `UPDATE users SET frozen = false, frozen_reason = NULL, frozen_at = NULL WHERE id = $1 AND frozen RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

/** Newest first, the page after `cursor`. */
export async function findUsersPage(
  db: Queryable,
  filters: UserFilters,
  page: { limit: number; cursor: string | undefined },
): Promise<KeysetPageResult<UserRecord>> {
  const where: string[] = [];
  const args: unknown[] = [];
  const arg = (value: unknown) => {
    args.push(value);
    return `$${args.length}`;
  };
  if (filters.ids !== undefined) where.push(`u.id = ANY(${arg(filters.ids)}::uuid[])`);
  if (filters.phone !== undefined) where.push(`u.phone = ${arg(filters.phone)}`);
  if (filters.frozen !== undefined) where.push(`u.frozen = ${arg(filters.frozen)}`);
  if (filters.realname_status !== undefined) where.push(`COALESCE(r.status, 'unverified') = ${arg(filters.realname_status)}`);
  return keysetPage<UserRecord>(db, {
    query: `${SELECT_USER} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
    params: args,
    orderBy: NEWEST_FIRST,
    ...page,
  });
}

/** Ordinary phone users only (publishers stand in for admins); "today" starts at 00:00 UTC. */
export async function countPhoneUsers(db: Queryable) {
  const [row]: Array<{ total: number; today: number; frozen: number }> = await db.query(`
    SELECT count(*)::int AS total,
           count(*) FILTER (WHERE created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::int AS today,
           count(*) FILTER (WHERE frozen)::int AS frozen
    FROM users WHERE phone IS NOT NULL`);
  return row!;
}

/** Phone users registered per UTC day, today and the 29 days before; days without any are left out. */
export async function countPhoneUsersByDay(db: Queryable): Promise<Array<{ day: string; new_users: number }>> {
  return db.query(`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS new_users
      FROM users
     WHERE phone IS NOT NULL
       AND created_at >= (date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') - interval '29 days'
     GROUP BY 1 ORDER BY 1`);
}
