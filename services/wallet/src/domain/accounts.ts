/**
 * Ledger accounts are named by what they hold, so a transfer can name its accounts without a lookup
 * and every transaction locks them in one order (by key), which rules out deadlocks between transfers.
 */
export type AccountKind = 'user_available' | 'order_escrow' | 'platform_revenue' | 'gateway_clearing' | 'withdrawal_hold' | 'payout_clearing';

export interface AccountRef {
  key: string;
  kind: AccountKind;
  ownerId: string | null;
}

export const userAvailable = (userId: string): AccountRef => ({ key: `user:${userId}`, kind: 'user_available', ownerId: userId });
export const orderEscrow = (orderId: string): AccountRef => ({ key: `escrow:${orderId}`, kind: 'order_escrow', ownerId: orderId });
export const PLATFORM_REVENUE: AccountRef = { key: 'platform:revenue', kind: 'platform_revenue', ownerId: null };
export const GATEWAY_CLEARING: AccountRef = { key: 'gateway:clearing', kind: 'gateway_clearing', ownerId: null };
/** The amount of one withdrawal while it is pending or being sent. */
export const withdrawalHold = (withdrawalId: string): AccountRef => ({ key: `withdrawal:${withdrawalId}`, kind: 'withdrawal_hold', ownerId: null });
/** What was paid out through a provider: money that left the platform. */
export const payoutClearing = (channel: string): AccountRef => ({ key: `payout:${channel}`, kind: 'payout_clearing', ownerId: null });

/** The clearing account is the only one that may go negative: it mirrors money that came from outside. */
export function mayGoNegative(kind: AccountKind): boolean {
  return kind === 'gateway_clearing';
}
