import type { RefundRow } from '../persistence/refund-repository';
import { isoTimes } from './iso-times';

/** A refund as the contract shows it: money in fen, times as ISO strings. */
export function toRefundView(row: RefundRow) {
  const { id, payment_id, user_id, provider, kind, reason, status, provider_refund_id, decided_by } = row;
  const times = isoTimes(row, ['created_at', 'decided_at', 'refunded_at', 'finished_at']);
  return { id, payment_id, user_id, provider, kind, amount: Number(row.amount), reason, status, provider_refund_id, decided_by, ...times };
}
