import { updateReturning, type Queryable, type Tx } from '@market/shared/db';
import type { PayMethod, PaymentProvider } from '../domain/payment-channel';
import type { PaymentStatus } from '../domain/payment';
import { claimBatch } from './claim-batch';

export interface PaymentRow {
  id: string;
  user_id: string;
  amount: string;
  channel: PayMethod;
  provider: PaymentProvider;
  status: PaymentStatus;
  pay_url: string;
  qr_code: string | null;
  gateway_txn_id: string | null;
  expires_at: Date;
  paid_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, user_id, amount, channel, provider, status, pay_url, qr_code, gateway_txn_id, expires_at, paid_at, finished_at, created_at';

export async function insertPayment(
  db: Queryable,
  row: Omit<PaymentRow, 'amount' | 'status' | 'gateway_txn_id' | 'paid_at' | 'finished_at'> & { amount: number },
) {
  const [inserted]: PaymentRow[] = await db.query(
    `INSERT INTO payments (id, user_id, amount, channel, provider, status, pay_url, qr_code, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    [row.id, row.user_id, row.amount, row.channel, row.provider, row.pay_url, row.qr_code, row.expires_at, row.created_at],
  );
  return inserted!;
}

export async function findPayment(db: Queryable, id: string, lock = false): Promise<PaymentRow | null> {
  const rows: PaymentRow[] = await db.query(`SELECT ${COLUMNS} FROM payments WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** Moves a payment to its final state; `from` is the state it was read in under lock. */
export async function finishPayment(
  tx: Tx,
  id: string,
  from: PaymentStatus,
  change: { status: PaymentStatus; gateway_txn_id: string | null; paid_at: Date | null; finished_at: Date },
): Promise<PaymentRow> {
  const [row] = await updateReturning<PaymentRow>(
    tx,
    `UPDATE payments SET status = $2, gateway_txn_id = COALESCE($3, gateway_txn_id), paid_at = $4, finished_at = $5
     WHERE id = $1 AND status = $6 RETURNING ${COLUMNS}`,
    [id, change.status, change.gateway_txn_id, change.paid_at, change.finished_at, from],
  );
  if (!row) throw new Error(`payment ${id} is no longer ${from}`);
  return row;
}

/**
 * Claims up to `limit` pending payments past their expiry that no scan looked at in the last
 * `recheckMs`, least recently looked at first, and stamps them: a payment that cannot be decided now
 * (its gateway is down) goes to the back of the line instead of holding the next scan to the same rows.
 */
export function claimOverduePayments(db: Queryable, now: Date, recheckMs: number, limit: number): Promise<string[]> {
  const claim = {
    set: 'expiry_checked_at = $1',
    where: `status = 'pending' AND expires_at <= $1 AND (expiry_checked_at IS NULL OR expiry_checked_at <= $2)`,
    orderBy: 'expiry_checked_at NULLS FIRST, expires_at',
  };
  return claimBatch(db, 'payments', claim, [now, new Date(now.getTime() - recheckMs)], limit);
}

/** Claims pending, unexpired payments opened (or last queried) at least `afterMs` ago, for an active query at their gateway. */
export function claimPaymentsToQuery(db: Queryable, now: Date, afterMs: number, limit: number): Promise<string[]> {
  const claim = {
    set: 'queried_at = $1',
    where: `status = 'pending' AND expires_at > $1 AND created_at <= $2 AND (queried_at IS NULL OR queried_at <= $2)`,
    orderBy: 'queried_at NULLS FIRST, created_at',
  };
  return claimBatch(db, 'payments', claim, [now, new Date(now.getTime() - afterMs)], limit);
}
