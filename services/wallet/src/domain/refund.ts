import type { RefundKind, RefundStatus, z } from '@market/contracts';
import { GATEWAY_CLEARING, refundClearing, refundHold, userAvailable, type AccountRef } from './accounts';
import type { HoldTransfer } from './money-move-table';
import { InvalidState } from '@market/shared/errors';
import { RefundExceedsPayment } from './errors';
import type { PaymentStatus } from './payment';

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

/**
 * What finance's refund of a recharge returns, or why it cannot: a late success returns what was
 * credited and is not refunded yet; money paid with another amount (never credited) returns what
 * the provider says was paid (`paidElsewise`), once.
 */
export function startedRefundAmount(
  kind: Exclude<RefundKindName, 'user_request'>,
  payment: { status: PaymentStatus; amount: number },
  alreadyTaken: number,
  paidElsewise: number | null,
): number | InvalidState | RefundExceedsPayment {
  if (kind === 'late_success') {
    if (payment.status !== 'succeeded') return new InvalidState(`the recharge is ${payment.status}; nothing of it was credited`);
    const left = payment.amount - alreadyTaken;
    return left > 0 ? left : new RefundExceedsPayment(0);
  }
  if (payment.status === 'succeeded' || paidElsewise === null) return new InvalidState('the recharge is credited; return it as a late success or by the user’s request');
  if (alreadyTaken > 0) return new InvalidState('the money of this recharge is already being returned');
  return paidElsewise;
}
