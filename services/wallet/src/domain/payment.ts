import type { RechargeStatus, z } from '@market/contracts';

export type PaymentStatus = z.infer<typeof RechargeStatus>;

/** What the gateway says (callback or query) or what the clock says about a pending payment. */
export type PaymentOutcome = 'succeeded' | 'failed' | 'expired';

/**
 * The recharge payment state table (docs/rules.md §4 "Recharge payment"): a pending payment moves once.
 * A success reported for a payment already failed or expired is the one move out of a final state:
 * the money did arrive at the gateway, so it is credited (`late`, audited) rather than lost (ADR 0031).
 * Anything else arriving for a final payment changes nothing.
 */
export const PAYMENT_MOVES: ReadonlyArray<{ from: PaymentStatus; on: PaymentOutcome; to: PaymentStatus; late?: true }> = [
  { from: 'pending', on: 'succeeded', to: 'succeeded' },
  { from: 'pending', on: 'failed', to: 'failed' },
  { from: 'pending', on: 'expired', to: 'expired' },
  { from: 'failed', on: 'succeeded', to: 'succeeded', late: true },
  { from: 'expired', on: 'succeeded', to: 'succeeded', late: true },
];

export function paymentMove(from: PaymentStatus, on: PaymentOutcome) {
  return PAYMENT_MOVES.find((m) => m.from === from && m.on === on) ?? null;
}

export interface RechargeLimits {
  minFen: number;
  maxFen: number;
}

/** Why an amount cannot be recharged, or null when it can. */
export function rechargeAmountError(amount: number, limits: RechargeLimits): string | null {
  if (amount < limits.minFen) return `must be at least ${limits.minFen} fen`;
  if (amount > limits.maxFen) return `must be at most ${limits.maxFen} fen`;
  return null;
}
