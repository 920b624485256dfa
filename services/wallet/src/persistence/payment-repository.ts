import { updateReturning, type Queryable, type Tx } from '@market/shared/db';
import type { PaymentStatus } from '../domain/payment';

export interface PaymentRow {
  id: string;
  user_id: string;
  amount: string;
  channel: 'alipay' | 'wechat';
  provider: string;
  status: PaymentStatus;
  pay_url: string;
  gateway_txn_id: string | null;
  expires_at: Date;
  paid_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, user_id, amount, channel, provider, status, pay_url, gateway_txn_id, expires_at, paid_at, finished_at, created_at';

export async function insertPayment(db: Queryable, row: Omit<PaymentRow, 'amount' | 'status' | 'gateway_txn_id' | 'paid_at' | 'finished_at'> & { amount: number }) {
  const [inserted]: PaymentRow[] = await db.query(
    `INSERT INTO payments (id, user_id, amount, channel, provider, status, pay_url, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8) RETURNING ${COLUMNS}`,
    [row.id, row.user_id, row.amount, row.channel, row.provider, row.pay_url, row.expires_at, row.created_at],
  );
  return inserted!;
}

export async function findPayment(db: Queryable, id: string, lock = false): Promise<PaymentRow | null> {
  const rows: PaymentRow[] = await db.query(`SELECT ${COLUMNS} FROM payments WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

export async function finishPayment(
  tx: Tx,
  id: string,
  change: { status: PaymentStatus; gateway_txn_id: string | null; paid_at: Date | null; finished_at: Date },
): Promise<PaymentRow> {
  const [row] = await updateReturning<PaymentRow>(
    tx,
    `UPDATE payments SET status = $2, gateway_txn_id = COALESCE($3, gateway_txn_id), paid_at = $4, finished_at = $5
     WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
    [id, change.status, change.gateway_txn_id, change.paid_at, change.finished_at],
  );
  if (!row) throw new Error(`payment ${id} is no longer pending`);
  return row;
}

/** Pending payments past their expiry, oldest first. */
export async function overduePaymentIds(db: Queryable, now: Date, limit: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await db.query(
    `SELECT id FROM payments WHERE status = 'pending' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}
