/**
 * Ledger accounts are named by what they hold, so a transfer can name its accounts without a lookup
 * and every transaction locks them in one order (by key), which rules out deadlocks between transfers.
 */
export type AccountKind =
  | 'user_available'
  | 'order_escrow'
  | 'platform_revenue'
  | 'gateway_clearing'
  | 'withdrawal_hold'
  | 'payout_clearing'
  | 'refund_hold'
  | 'refund_clearing';

export interface AccountRef {
  key: string;
  kind: AccountKind;
  ownerId: string | null;
}

export const userAvailable = (userId: string): AccountRef => ({ key: `user:${userId}`, kind: 'user_available', ownerId: userId });
export const orderEscrow = (orderId: string): AccountRef => ({ key: `escrow:${orderId}`, kind: 'order_escrow', ownerId: orderId });

/**
 * Platform fees are spread over this many revenue accounts, chosen by order id, so settlements
 * running at once lock different rows instead of queueing on one (issue 19). The platform's revenue
 * is the sum of every `platform_revenue` account (the unsharded `platform:revenue` of older
 * ledgers included).
 */
export const REVENUE_SHARDS = 16;

/** FNV-1a over the order id: stable across processes and releases, spread evenly. */
function shardOf(orderId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < orderId.length; i++) hash = Math.imul(hash ^ orderId.charCodeAt(i), 0x01000193) >>> 0;
  return hash % REVENUE_SHARDS;
}

export const platformRevenue = (orderId: string): AccountRef => ({
  key: `platform:revenue:${String(shardOf(orderId)).padStart(2, '0')}`,
  kind: 'platform_revenue',
  ownerId: null,
});
export const GATEWAY_CLEARING: AccountRef = { key: 'gateway:clearing', kind: 'gateway_clearing', ownerId: null };
/** The amount of one withdrawal while it is pending or being sent. */
export const withdrawalHold = (withdrawalId: string): AccountRef => ({ key: `withdrawal:${withdrawalId}`, kind: 'withdrawal_hold', ownerId: null });
/** What was paid out through a provider: money that left the platform. */
export const payoutClearing = (channel: string): AccountRef => ({ key: `payout:${channel}`, kind: 'payout_clearing', ownerId: null });

/** The amount of one approved refund until the provider says it was returned or failed (ADR 0050). */
export const refundHold = (refundId: string): AccountRef => ({ key: `refund:${refundId}`, kind: 'refund_hold', ownerId: null });
/** What was returned to payers through a provider's refunds: money that left the platform. */
export const refundClearing = (provider: string): AccountRef => ({ key: `refunded:${provider}`, kind: 'refund_clearing', ownerId: null });

/** The clearing account is the only one that may go negative: it mirrors money that came from outside. */
export function mayGoNegative(kind: AccountKind): boolean {
  return kind === 'gateway_clearing';
}
