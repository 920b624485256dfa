import { type Queryable, type Tx } from '@market/shared/db';

export interface RenewalChargeRow {
  renewal_id: string;
  order_id: string;
  renter_id: string;
  amount: string;
  payment_id: string;
  charged_at: Date;
}

const COLUMNS = 'renewal_id, order_id, renter_id, amount, payment_id, charged_at';

export async function findRenewalCharge(db: Queryable, renewalId: string): Promise<RenewalChargeRow | null> {
  const rows: RenewalChargeRow[] = await db.query(`SELECT ${COLUMNS} FROM order_escrow_renewals WHERE renewal_id = $1`, [renewalId]);
  return rows[0] ?? null;
}

/** Records a renewal's charge and grows the order's held escrow by it, so the escrow's amount stays what it holds. */
export async function recordRenewalCharge(tx: Tx, row: RenewalChargeRow): Promise<RenewalChargeRow> {
  const rows: RenewalChargeRow[] = await tx.query(
    `INSERT INTO order_escrow_renewals (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [row.renewal_id, row.order_id, row.renter_id, row.amount, row.payment_id, row.charged_at],
  );
  await tx.query(`UPDATE order_escrows SET amount = amount + $2 WHERE order_id = $1`, [row.order_id, row.amount]);
  return rows[0]!;
}
