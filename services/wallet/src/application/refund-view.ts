import type { RefundRow } from '../persistence/refund-repository';

/** A refund as the contract shows it: money in fen, times as ISO strings. */
export function toRefundView(row: RefundRow) {
  return {
    id: row.id,
    payment_id: row.payment_id,
    user_id: row.user_id,
    provider: row.provider,
    kind: row.kind,
    amount: Number(row.amount),
    reason: row.reason,
    status: row.status,
    provider_refund_id: row.provider_refund_id,
    decided_by: row.decided_by,
    created_at: row.created_at.toISOString(),
    decided_at: row.decided_at?.toISOString() ?? null,
    refunded_at: row.refunded_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}
