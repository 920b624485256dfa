import type { Queryable, Tx } from '@market/shared/db';
import type { RowsStatement } from '@market/shared/events';

export type EscrowStatus = 'held' | 'settled' | 'refunded' | 'void';

export interface EscrowRow {
  order_id: string;
  renter_id: string;
  owner_id: string;
  amount: string;
  status: EscrowStatus;
  payment_id: string | null;
  charged_at: Date | null;
  ended_at: Date | null;
  end_event: string | null;
}

const COLUMNS = 'order_id, renter_id, owner_id, amount, status, payment_id, charged_at, ended_at, end_event';

/**
 * Queues behind every other charge or charge-status read of the order until the transaction ends,
 * and answers the database's time once it holds the lock: one clock for the charge deadline and
 * for the status read, so no charge can commit after a status read that saw its deadline passed.
 */
export async function lockOrderCharges(tx: Tx, orderId: string): Promise<Date> {
  const [row]: Array<{ now: Date }> = await tx.query(
    `SELECT clock_timestamp() AS now FROM (SELECT pg_advisory_xact_lock(hashtextextended('order-charge:' || $1, 0))) AS locked`,
    [orderId],
  );
  return row!.now;
}

/**
 * Claims the order's escrow record for a charge. Concurrent claims of one order queue on the
 * primary key: the first inserts, the others find its row once it commits (or insert themselves if
 * it rolled back). Null when a record already exists.
 */
/** The statement that records an order's charge, answering the record (nothing when the order already has one). */
export function escrowClaim(row: { order_id: string; renter_id: string; owner_id: string; amount: number; payment_id: string; charged_at: Date }): RowsStatement {
  return {
    text: `INSERT INTO order_escrows (order_id, renter_id, owner_id, amount, status, payment_id, charged_at)
     VALUES ($1, $2, $3, $4, 'held', $5, $6) ON CONFLICT (order_id) DO NOTHING RETURNING ${COLUMNS}`,
    params: [row.order_id, row.renter_id, row.owner_id, row.amount, row.payment_id, row.charged_at],
  };
}

/**
 * The record of an order that is ending, locked until the transaction ends. An order the wallet
 * never charged gets a `void` record, so a charge racing behind its end is refused.
 */
export async function lockEscrowForEnd(
  tx: Tx,
  order: { order_id: string; renter_id: string; owner_id: string },
  endEvent: string,
  at: Date,
): Promise<{ row: EscrowRow; voided: boolean }> {
  const inserted: EscrowRow[] = await tx.query(
    `INSERT INTO order_escrows (order_id, renter_id, owner_id, amount, status, ended_at, end_event)
     VALUES ($1, $2, $3, 0, 'void', $4, $5) ON CONFLICT (order_id) DO NOTHING RETURNING ${COLUMNS}`,
    [order.order_id, order.renter_id, order.owner_id, at, endEvent],
  );
  if (inserted[0]) return { row: inserted[0], voided: true };
  const [row] = await findEscrow(tx, order.order_id, true);
  return { row: row!, voided: false };
}

export async function findEscrow(db: Queryable, orderId: string, lock = false): Promise<EscrowRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM order_escrows WHERE order_id = $1 ${lock ? 'FOR UPDATE' : ''}`, [orderId]);
}

/** The statement that ends a held escrow, answering its order id (nothing when it was no longer held). */
export function escrowEnd(orderId: string, status: 'settled' | 'refunded', endEvent: string, at: Date): RowsStatement {
  return {
    text: `UPDATE order_escrows SET status = $2, ended_at = $3, end_event = $4 WHERE order_id = $1 AND status = 'held' RETURNING order_id`,
    params: [orderId, status, at, endEvent],
  };
}

/** The renter's money in escrow of orders still running. */
export async function heldForRenter(db: Queryable, renterId: string): Promise<number> {
  const [row]: Array<{ total: string }> = await db.query(
    `SELECT COALESCE(SUM(amount), 0) AS total FROM order_escrows WHERE renter_id = $1 AND status = 'held'`,
    [renterId],
  );
  return Number(row!.total);
}

export interface EscrowMoneyRow {
  order_id: string;
  status: EscrowStatus;
  charged: string;
  charges: number;
  to_owner: string;
  to_platform: string;
  to_renter: string;
  charged_at: Date | null;
  ended_at: Date | null;
}

/**
 * One page of escrow records by order id for money:verify, with the order's charges into escrow
 * (its renewals' included in `charged`, not in `charges`) and the payouts out of it summed by kind (by transfer type, so however revenue accounts are laid out).
 */
export async function escrowMoneyAfter(db: Queryable, after: string | null, limit: number): Promise<EscrowMoneyRow[]> {
  return db.query(
    `SELECT o.order_id, o.status, o.charged_at, o.ended_at,
            COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type = 'order_payment'), 0)::text AS charged,
            -- a renewal's charge is one of its own (ADR 0065): the order's own charge is counted apart
            (COUNT(t.id) FILTER (WHERE t.biz_type = 'order_payment')
              - (SELECT COUNT(*) FROM order_escrow_renewals r WHERE r.order_id = o.order_id))::int AS charges,
            COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type = 'settlement_income'), 0)::text AS to_owner,
            COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type = 'platform_fee'), 0)::text AS to_platform,
            COALESCE(SUM(t.amount) FILTER (WHERE t.biz_type IN ('order_refund', 'settlement_refund')), 0)::text AS to_renter
       FROM (SELECT * FROM order_escrows WHERE ($1::uuid IS NULL OR order_id > $1::uuid) ORDER BY order_id LIMIT $2) o
       LEFT JOIN transfers t ON t.order_id = o.order_id
      GROUP BY o.order_id, o.status, o.charged_at, o.ended_at ORDER BY o.order_id`,
    [after, limit],
  );
}
