import type { Tx } from '@market/shared/db';
import type { WalletDeps } from './deps';

/**
 * Tells whoever listens that an order's rent was paid from the renter's balance (the charge of the
 * order, or of a renewal of it), in the transaction that moved the money.
 */
export async function announcePaidFromBalance(
  deps: Pick<WalletDeps, 'events'>,
  tx: Tx,
  paid: { paymentId: string; renterId: string; amount: number; orderId: string; at: Date },
): Promise<void> {
  await deps.events.publish(tx, 'payment.succeeded', {
    payment_id: paid.paymentId,
    user_id: paid.renterId,
    amount: paid.amount,
    purpose: 'order',
    order_id: paid.orderId,
    gateway_txn_id: null,
    paid_at: paid.at.toISOString(),
  });
}
