import type { RefundKind, RefundStatus, z } from '@market/contracts';
import { GATEWAY_CLEARING, refundClearing, refundHold, userAvailable, type AccountRef } from './accounts';
import type { HoldTransfer } from './plan-withdrawal-move';
import { RefundExceedsPayment } from './errors';

export type RefundState = z.infer<typeof RefundStatus>;
export type RefundKindName = z.infer<typeof RefundKind>;

/** The refund states nothing moves any more. */
export const FINAL_REFUND_STATES: readonly RefundState[] = ['refunded', 'failed', 'rejected'];

/**
 * Where a refund's money is while it is held: a recharge that was credited (the user's request, a
 * late success) is returned out of the user's available balance; one that arrived with another
 * amount was never credited, so it is returned out of the gateway clearing account it came in by.
 */
export function refundSource(kind: RefundKindName, userId: string): AccountRef {
  return kind === 'amount_mismatch' ? GATEWAY_CLEARING : userAvailable(userId);
}

/** The two accounts of one hold move of a refund: taken from its source, paid out to the provider, or released back. */
export function refundHoldAccounts(refund: { id: string; kind: RefundKindName; user_id: string; provider: string }, move: HoldTransfer) {
  const source = refundSource(refund.kind, refund.user_id);
  const hold = refundHold(refund.id);
  if (move === 'take') return { from: source, to: hold, bizType: 'refund_hold' as const };
  if (move === 'pay_out') return { from: hold, to: refundClearing(refund.provider), bizType: 'refund_payout' as const };
  return { from: hold, to: source, bizType: 'refund_release' as const };
}

/** What of a recharge of `paid` fen can still be refunded given what its live refunds take; refuses more. */
export function refundableError(amount: number, paid: number, alreadyTaken: number): RefundExceedsPayment | null {
  const refundable = Math.max(0, paid - alreadyTaken);
  return amount > refundable ? new RefundExceedsPayment(refundable) : null;
}
