import { updateReturning, type KeysetPageResult, type Queryable, type Tx } from '@market/shared/db';
import type { PaymentProvider } from '../domain/payment-channel';
import type { RefundKindName, RefundState } from '../domain/refund';
import { claimBatch } from './claim-batch';
import { filteredPage, type PageRequest } from './filtered-page';
import { updateInState } from './update-in-state';

export interface RefundRow {
  id: string;
  payment_id: string;
  user_id: string;
  provider: PaymentProvider;
  kind: RefundKindName;
  amount: string;
  reason: string | null;
  status: RefundState;
  decided_by: string | null;
  decided_at: Date | null;
  sent_at: Date | null;
  next_check_at: Date | null;
  checks: number;
  provider_refund_id: string | null;
  refunded_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
}

const COLUMNS =
  'id, payment_id, user_id, provider, kind, amount, reason, status, decided_by, decided_at, sent_at, next_check_at, checks, provider_refund_id, refunded_at, finished_at, created_at';

/** Stores a refund in the state its first move planned (`requested`, or `approved` when finance opens it). */
export async function insertRefund(
  tx: Tx,
  row: Pick<RefundRow, 'id' | 'payment_id' | 'user_id' | 'provider' | 'kind' | 'reason' | 'status' | 'created_at'> & { amount: number },
  stamps: { decided_by?: string; decided_at?: Date; next_check_at?: Date | null },
): Promise<RefundRow> {
  const [inserted]: RefundRow[] = await tx.query(
    `INSERT INTO refunds (id, payment_id, user_id, provider, kind, amount, reason, status, created_at, decided_by, decided_at, next_check_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
    [
      row.id,
      row.payment_id,
      row.user_id,
      row.provider,
      row.kind,
      row.amount,
      row.reason,
      row.status,
      row.created_at,
      stamps.decided_by ?? null,
      stamps.decided_at ?? null,
      stamps.next_check_at ?? null,
    ],
  );
  return inserted!;
}

export async function findRefund(db: Queryable, id: string, lock = false): Promise<RefundRow | null> {
  const rows: RefundRow[] = await db.query(`SELECT ${COLUMNS} FROM refunds WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** What the live refunds of a payment take from it: every one not rejected or failed. */
export async function refundedOf(db: Queryable, paymentId: string): Promise<number> {
  const [row]: Array<{ total: string }> = await db.query(
    `SELECT COALESCE(SUM(amount), 0)::text AS total FROM refunds WHERE payment_id = $1 AND status NOT IN ('rejected', 'failed')`,
    [paymentId],
  );
  return Number(row!.total);
}

export type RefundChange = Partial<
  Pick<RefundRow, 'status' | 'reason' | 'decided_by' | 'decided_at' | 'sent_at' | 'next_check_at' | 'provider_refund_id' | 'refunded_at' | 'finished_at'>
>;

/** Writes `change` to a refund the caller holds locked in `from`. */
export function updateRefund(tx: Tx, id: string, from: RefundState, change: RefundChange): Promise<RefundRow> {
  return updateInState<RefundRow, RefundState>(tx, { table: 'refunds', noun: 'refund', columns: COLUMNS }, id, from, change);
}

/**
 * How long a refund just approved is left to its approver, who sends it at once: only a refund
 * still `approved` after that (its approver crashed before sending) is the job's to send.
 */
const APPROVER_FIRST_MS = 5_000;

/**
 * Claims up to `limit` refunds to send or ask about whose next look is due, pushing that look ahead
 * by `baseMs` doubled with each look so far (at most 64 times): replicas skip each other's rows
 * (SKIP LOCKED), and no lock is held while the provider is asked.
 */
export function claimDueRefunds(db: Queryable, now: Date, baseMs: number, limit: number): Promise<string[]> {
  const claim = {
    set: 'next_check_at = $1::timestamptz + make_interval(secs => $2::double precision * power(2, LEAST(checks, 6)) / 1000), checks = checks + 1',
    where: `(status = 'processing' AND next_check_at <= $1) OR (status = 'approved' AND next_check_at <= $3)`,
    orderBy: 'next_check_at',
  };
  return claimBatch(db, 'refunds', claim, [now, baseMs, new Date(now.getTime() - APPROVER_FIRST_MS)], limit);
}

/** Takes one refund due for a look, as `claimDueRefunds` does; null when it is not due or already final. */
export async function claimRefund(db: Queryable, id: string, now: Date, baseMs: number): Promise<RefundRow | null> {
  const [row] = await updateReturning<RefundRow>(
    db,
    `UPDATE refunds SET next_check_at = $2::timestamptz + make_interval(secs => $3::double precision * power(2, LEAST(checks, 6)) / 1000), checks = checks + 1
     WHERE id = $1 AND status IN ('approved', 'processing') AND next_check_at <= $2 RETURNING ${COLUMNS}`,
    [id, now, baseMs],
  );
  return row ?? null;
}

export interface RefundQuery extends PageRequest {
  userId?: string;
  paymentId?: string;
  status?: RefundState;
  kind?: RefundKindName;
}

export function queryRefunds(db: Queryable, q: RefundQuery): Promise<KeysetPageResult<RefundRow>> {
  return filteredPage<RefundRow>(db, `SELECT ${COLUMNS} FROM refunds`, { user_id: q.userId, payment_id: q.paymentId, status: q.status, kind: q.kind }, q);
}
