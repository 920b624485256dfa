import { updateReturning, type Queryable, type Tx } from '@market/shared/db';
import type { RevealRequestStatus } from '../domain/plan-reveal';

export interface RevealRequestRow {
  id: string;
  order_id: string;
  requested_by: string;
  reason: string;
  status: RevealRequestStatus;
  approved_by: string | null;
  approved_at: Date | null;
  used_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, order_id, requested_by, reason, status, approved_by, approved_at, used_at, created_at';

export async function insertRevealRequest(tx: Tx, request: Pick<RevealRequestRow, 'id' | 'order_id' | 'requested_by' | 'reason'>): Promise<RevealRequestRow> {
  const rows: RevealRequestRow[] = await tx.query(
    `INSERT INTO reveal_requests (id, order_id, requested_by, reason, status) VALUES ($1, $2, $3, $4, 'pending') RETURNING ${COLUMNS}`,
    [request.id, request.order_id, request.requested_by, request.reason],
  );
  return rows[0]!;
}

/** One request of the order; locked, when a reveal or an approval is to change it. */
export async function findRevealRequest(db: Queryable, orderId: string, id: string, opts: { lock?: boolean } = {}): Promise<RevealRequestRow | null> {
  const rows: RevealRequestRow[] = await db.query(
    `SELECT ${COLUMNS} FROM reveal_requests WHERE id = $1 AND order_id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
    [id, orderId],
  );
  return rows[0] ?? null;
}

export async function revealRequestsOf(db: Queryable, orderId: string): Promise<RevealRequestRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM reveal_requests WHERE order_id = $1 ORDER BY created_at DESC, id DESC`, [orderId]);
}

export async function approveRevealRequest(tx: Tx, id: string, approverId: string, at: Date): Promise<RevealRequestRow> {
  const rows = await updateReturning<RevealRequestRow>(
    tx,
    `UPDATE reveal_requests SET status = 'approved', approved_by = $2, approved_at = $3 WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, approverId, at],
  );
  return rows[0]!;
}

export async function useRevealRequest(tx: Tx, id: string, at: Date): Promise<void> {
  await tx.query(`UPDATE reveal_requests SET status = 'used', used_at = $2 WHERE id = $1`, [id, at]);
}
