import type { RechargeStatus, z } from '@market/contracts';

export type PaymentStatus = z.infer<typeof RechargeStatus>;

/** What the gateway says (callback or query) or what the clock says about a pending payment. */
export type PaymentOutcome = 'succeeded' | 'failed' | 'expired';

/**
 * The recharge payment state table (CONTRACT §4 "Recharge payment"): only a pending payment moves,
 * and only once; anything arriving for a payment already final changes nothing.
 */
export const PAYMENT_MOVES: ReadonlyArray<{ from: PaymentStatus; on: PaymentOutcome; to: PaymentStatus }> = [
  { from: 'pending', on: 'succeeded', to: 'succeeded' },
  { from: 'pending', on: 'failed', to: 'failed' },
  { from: 'pending', on: 'expired', to: 'expired' },
];

export function nextPaymentStatus(from: PaymentStatus, on: PaymentOutcome): PaymentStatus | null {
  return PAYMENT_MOVES.find((m) => m.from === from && m.on === on)?.to ?? null;
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
