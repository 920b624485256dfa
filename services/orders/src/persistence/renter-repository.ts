import { keysetPage, NEWEST_FIRST, updateReturning, type KeysetPageResult, type Queryable, type Tx } from '@market/shared/db';
import type { OrderState } from '../domain/order-state';

export interface RenterBlockRow {
  id: string;
  owner_id: string;
  renter_id: string;
  created_at: Date;
}

const COLUMNS = 'id, owner_id, renter_id, created_at';

/** The owner's block of the renter: the one just made, or the one that stood already. */
export async function insertBlock(tx: Tx, row: RenterBlockRow): Promise<{ block: RenterBlockRow; created: boolean }> {
  const inserted: RenterBlockRow[] = await tx.query(
    `INSERT INTO renter_blocks (${COLUMNS}) VALUES ($1, $2, $3, $4) ON CONFLICT (owner_id, renter_id) DO NOTHING RETURNING ${COLUMNS}`,
    [row.id, row.owner_id, row.renter_id, row.created_at],
  );
  if (inserted[0]) return { block: inserted[0], created: true };
  const [standing] = await blocksWhere(tx, 'owner_id = $1 AND renter_id = $2', [row.owner_id, row.renter_id]);
  return { block: standing!, created: false };
}

/** True when there was a block to lift. */
export async function deleteBlock(tx: Tx, ownerId: string, renterId: string): Promise<boolean> {
  const rows = await updateReturning<{ id: string }>(tx, `DELETE FROM renter_blocks WHERE owner_id = $1 AND renter_id = $2 RETURNING id`, [ownerId, renterId]);
  return rows.length > 0;
}

function blocksWhere(db: Queryable, where: string, params: unknown[]): Promise<RenterBlockRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM renter_blocks WHERE ${where} ORDER BY created_at DESC, id DESC`, params);
}

export async function blocksBy(db: Queryable, ownerId: string, cursor: string | undefined, limit: number): Promise<KeysetPageResult<RenterBlockRow>> {
  return keysetPage<RenterBlockRow>(db, { query: `SELECT ${COLUMNS} FROM renter_blocks WHERE owner_id = $1`, params: [ownerId], orderBy: NEWEST_FIRST, limit, cursor });
}

/** Every block by an owner, or of a renter, newest first (the back office's view of one user; a user blocks few). */
export async function blocksOf(db: Queryable, side: 'owner_id' | 'renter_id', userId: string): Promise<RenterBlockRow[]> {
  return blocksWhere(db, `${side} = $1`, [userId]);
}

export interface RenterCounts {
  completed: number;
  active: number;
  today: number;
}

/**
 * Takes the renter's limits lock until the transaction ends: creates of one renter queue on it, so
 * the counts read after it are the counts the new order joins and two creates cannot both take the
 * last slot.
 */
export async function lockRenterLimits(tx: Tx, renterId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('renter-limits:' || $1, 0))`, [renterId]);
}

const COUNTS = `count(*) FILTER (WHERE status = 'completed')::int AS completed,
  count(*) FILTER (WHERE status = ANY($2::text[]))::int AS active,
  count(*) FILTER (WHERE created_at >= $3)::int AS today`;

/**
 * The renter's counts, and whether `ownerId` blocks the renter, in one round trip: what a create
 * looks at before its transaction.
 */
export async function renterCountsAndBlock(
  db: Queryable,
  renterId: string,
  ownerId: string,
  active: readonly OrderState[],
  dayStart: Date,
): Promise<RenterCounts & { blocked: boolean }> {
  const [row]: Array<RenterCounts & { blocked: boolean }> = await db.query(
    `SELECT ${COUNTS}, EXISTS (SELECT 1 FROM renter_blocks WHERE owner_id = $4 AND renter_id = $1) AS blocked
       FROM orders WHERE renter_id = $1`,
    [renterId, active, dayStart, ownerId],
  );
  return row!;
}

/** The renter's completed orders, active orders, and orders created since `dayStart`. */
export async function renterCounts(db: Queryable, renterId: string, active: readonly OrderState[], dayStart: Date): Promise<RenterCounts> {
  const [row]: Array<{ completed: number; active: number; today: number }> = await db.query(
    `SELECT ${COUNTS} FROM orders WHERE renter_id = $1`,
    [renterId, active, dayStart],
  );
  return row!;
}
