import {
  keysetPage,
  NEWEST_FIRST,
  updateReturning,
  type KeysetPageResult,
  type Queryable,
  type Tx, sqlParams,
} from '@market/shared/db';
import type { RowsStatement } from '@market/shared/events';
import type { Order, OrderChanges } from '../domain/order';
import type { OrderState } from '../domain/order-state';

/** A stored order is the domain's order, column for column. */
export type OrderRow = Order;

const COLUMNS = `id, listing_id, listing_title, renter_id, owner_id, hours, hourly_price::float8 AS hourly_price,
  rent::float8 AS rent, deposit::float8 AS deposit, amount::float8 AS amount, status, paid_at, started_at, ends_at,
  checkout, dispute_id, status_changed_at, deadline_at, created_at, updated_at,
  charge_requested_at, charge_deadline_at, credentials_checked_at, fee_rate_bps, overdue_alerted_at, version, marked_abnormal_by, renewal_charge_id`;

export type NewOrder = Omit<
  OrderRow,
  | 'paid_at'
  | 'started_at'
  | 'ends_at'
  | 'checkout'
  | 'dispute_id'
  | 'updated_at'
  | 'charge_requested_at'
  | 'charge_deadline_at'
  | 'fee_rate_bps'
  | 'overdue_alerted_at'
  | 'version'
  | 'marked_abnormal_by'
  | 'renewal_charge_id'
>;

/** The active-order index refuses a second active order on the listing: the caller maps that to 409. */
export const ONE_ACTIVE_PER_LISTING = 'orders_one_active_per_listing';

/** A new order's insert, answering the row: run with its events in one statement (`publishAllWith`). */
export function orderInsert(order: NewOrder): RowsStatement {
  return {
    text: `INSERT INTO orders (id, listing_id, listing_title, renter_id, owner_id, hours, hourly_price, rent, deposit, amount,
       status, status_changed_at, deadline_at, created_at, updated_at, credentials_checked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15)
     RETURNING ${COLUMNS}`,
    params: [
      order.id,
      order.listing_id,
      order.listing_title,
      order.renter_id,
      order.owner_id,
      order.hours,
      order.hourly_price,
      order.rent,
      order.deposit,
      order.amount,
      order.status,
      order.status_changed_at,
      order.deadline_at,
      order.created_at,
      order.credentials_checked_at,
    ],
  };
}

/** `lock`: hold the row to the end of the transaction, so the state read is the state changed. */
export async function findOrder(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<OrderRow | null> {
  const rows: OrderRow[] = await db.query(`SELECT ${COLUMNS} FROM orders WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/**
 * The statement that changes an order and answers its row. Every change counts in `version`, so an
 * admin's decision can tell that the order changed after it was read; with `atVersion` the change
 * is made only to the order still at that version, and answers no row otherwise.
 */
export function orderUpdate(id: string, update: OrderChanges, atVersion?: number): RowsStatement {
  const entries = Object.entries(update).filter(([, value]) => value !== undefined);
  const assignments = entries.map(([key], i) => `${key} = $${i + 2}${key === 'checkout' ? '::jsonb' : ''}`).join(', ');
  const values = entries.map(([key, value]) => (key === 'checkout' && value !== null ? JSON.stringify(value) : value));
  const params = [id, ...values];
  const guard = atVersion === undefined ? '' : ` AND version = $${params.push(atVersion)}`;
  return { text: `UPDATE orders SET ${assignments}, version = version + 1 WHERE id = $1${guard} RETURNING ${COLUMNS}`, params };
}

export async function updateOrder(tx: Tx, id: string, update: OrderChanges): Promise<OrderRow> {
  const { text, params } = orderUpdate(id, update);
  const rows = await updateReturning<OrderRow>(tx, text, [...params]);
  return rows[0]!;
}

/**
 * Records that the system found no stored credentials to hand over, in one statement, unless the
 * order changed since it was read at `version`: the row, or null when it had (then nothing is written).
 * The version stays: this bookkeeping changes nothing a decision on the order rests on, and counting
 * it would refuse an admin's decision that read the order a moment before (ORDER_CHANGED).
 */
export async function markCredentialsCheckedIfUnchanged(db: Queryable, id: string, version: number, at: Date): Promise<OrderRow | null> {
  const rows = await updateReturning<OrderRow>(
    db,
    `UPDATE orders SET credentials_checked_at = $3, updated_at = $3 WHERE id = $1 AND version = $2 RETURNING ${COLUMNS}`,
    [id, version, at],
  );
  return rows[0] ?? null;
}

export interface OrderQuery {
  userId: string;
  role?: 'renter' | 'owner';
  status?: OrderState;
  cursor: string | undefined;
  limit: number;
}

/** One page (plus one row, to know whether another follows) of a user's orders, newest first. */
export async function queryOrders(db: Queryable, query: OrderQuery): Promise<KeysetPageResult<OrderRow>> {
  const { params, param } = sqlParams();
  const user = param(query.userId);
  const where =
    query.role === 'renter' ? [`renter_id = ${user}`] : query.role === 'owner' ? [`owner_id = ${user}`] : [`(renter_id = ${user} OR owner_id = ${user})`];
  if (query.status) where.push(`status = ${param(query.status)}`);
  return keysetPage<OrderRow>(db, {
    query: `SELECT ${COLUMNS} FROM orders WHERE ${where.join(' AND ')}`,
    params,
    orderBy: NEWEST_FIRST,
    limit: query.limit,
    cursor: query.cursor,
  });
}

/**
 * The next order whose deadline has passed, locked; orders another transaction holds (a replica's
 * scan, a party's move) are skipped, so no order is moved twice. Uses the `orders_due` index. An
 * unpaid order whose charge outcome is still unknown waits for the charge reconciler: cancelling
 * it would turn a charge that did land into a refund instead of a payment; an order whose renewal
 * is being charged waits for that charge's outcome (ADR 0065).
 */
export async function claimDueOrder(tx: Tx, now: Date, skipIds: string[] = []): Promise<OrderRow | null> {
  const rows: OrderRow[] = await tx.query(
    `SELECT ${COLUMNS} FROM orders WHERE deadline_at IS NOT NULL AND deadline_at <= $1 AND NOT (id = ANY($2::uuid[]))
       AND NOT (status = 'pending_payment' AND charge_deadline_at IS NOT NULL) AND renewal_charge_id IS NULL
     ORDER BY deadline_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [now, skipIds],
  );
  return rows[0] ?? null;
}

/**
 * Recomputes the deadline of every order in `status` after its threshold changed: counted from
 * when the order entered the state, or from the end of the rental; twice the threshold for an order
 * the back office was already alerted about (ADR 0029).
 */
export async function rescheduleDeadlines(
  tx: Tx,
  status: OrderState,
  since: 'entered' | 'ends_at',
  thresholdMs: number,
): Promise<number> {
  const start = since === 'entered' ? 'status_changed_at' : 'ends_at';
  const rows = await updateReturning<{ id: string }>(
    tx,
    `UPDATE orders SET deadline_at = ${start} + make_interval(secs => $2::float8 / 1000) * CASE WHEN overdue_alerted_at IS NULL THEN 1 ELSE 2 END
     WHERE status = $1 AND ${start} IS NOT NULL RETURNING id`,
    [status, thresholdMs],
  );
  return rows.length;
}

export interface AdminOrderQuery {
  status?: OrderState;
  renterId?: string;
  ownerId?: string;
  listingId?: string;
  createdFrom?: Date;
  createdTo?: Date;
  cursor: string | undefined;
  limit: number;
}

/** One page of all orders for the back office, newest first; every filter given narrows it. */
export async function queryAllOrders(db: Queryable, query: AdminOrderQuery): Promise<KeysetPageResult<OrderRow>> {
  const { params, param } = sqlParams();
  const where: string[] = [];
  if (query.status) where.push(`status = ${param(query.status)}`);
  if (query.renterId) where.push(`renter_id = ${param(query.renterId)}`);
  if (query.ownerId) where.push(`owner_id = ${param(query.ownerId)}`);
  if (query.listingId) where.push(`listing_id = ${param(query.listingId)}`);
  if (query.createdFrom) where.push(`created_at >= ${param(query.createdFrom)}`);
  if (query.createdTo) where.push(`created_at < ${param(query.createdTo)}`);
  return keysetPage<OrderRow>(db, {
    query: `SELECT ${COLUMNS} FROM orders${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
    params,
    orderBy: NEWEST_FIRST,
    limit: query.limit,
    cursor: query.cursor,
  });
}

/**
 * Records a charge about to be asked of the wallet (an earlier unsettled request keeps the later
 * deadline); with `version`, only if the order is still at that version (nothing else changed it
 * since it was read). Answers whether it was recorded.
 */
export async function recordChargeRequest(db: Queryable, id: string, at: Date, deadline: Date, version: number | null = null): Promise<OrderRow | null> {
  const rows = await updateReturning<OrderRow>(
    db,
    `UPDATE orders SET charge_requested_at = $2, charge_deadline_at = GREATEST(charge_deadline_at, $3), updated_at = $2, version = version + 1
     WHERE id = $1 AND ($4::int IS NULL OR version = $4) RETURNING ${COLUMNS}`,
    [id, at, deadline, version],
  );
  return rows[0] ?? null;
}

/**
 * Forgets the charge request once the wallet's answer is known to be "not charged", unless a newer
 * request (a later deadline) was recorded meanwhile. True when it was forgotten.
 */
export async function forgetChargeRequest(tx: Tx, id: string, deadline: Date): Promise<boolean> {
  const rows = await updateReturning<{ id: string }>(
    tx,
    `UPDATE orders SET charge_requested_at = NULL, charge_deadline_at = NULL, updated_at = now(), version = version + 1
     WHERE id = $1 AND charge_deadline_at = $2 RETURNING id`,
    [id, deadline],
  );
  return rows.length > 0;
}

export type ReconcileWork = { id: string; kind: 'charge' | 'credentials' };

/**
 * Leases the next order the reconciler has to look at: an unpaid order whose charge deadline has
 * passed with the outcome unknown, or a paid order still waiting for pending_handoff's look at
 * stored credentials since before `credentialsBefore`. The lease (charge_checked_at) is committed
 * with the claim, so replicas take different orders and no lock is held while the wallet is asked;
 * an order whose check failed comes back once the lease has run out.
 */
export async function leaseReconcileWork(tx: Tx, now: Date, credentialsBefore: Date, leaseMs: number): Promise<ReconcileWork | null> {
  const rows = await updateReturning<ReconcileWork>(
    tx,
    `WITH next AS (
       SELECT id, CASE WHEN status = 'pending_payment' THEN 'charge' ELSE 'credentials' END AS kind FROM orders
        WHERE ((status = 'pending_payment' AND charge_deadline_at < $1)
               OR (status = 'pending_handoff' AND paid_at < $2 AND credentials_checked_at IS NULL))
          AND (charge_checked_at IS NULL OR charge_checked_at < $1 - make_interval(secs => $3::float8 / 1000))
        LIMIT 1 FOR UPDATE SKIP LOCKED)
     UPDATE orders SET charge_checked_at = $1 FROM next WHERE orders.id = next.id RETURNING next.id, next.kind`,
    [now, credentialsBefore, leaseMs],
  );
  return rows[0] ?? null;
}

/** One page of orders by id for money:verify: all of them, in id order, after `after`. */
export async function ordersAfter(db: Queryable, after: string | null, limit: number): Promise<OrderRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM orders WHERE ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`, [after, limit]);
}
