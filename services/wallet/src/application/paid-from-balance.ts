import type { EventToWrite } from '@market/shared/events';

/**
 * The event that tells whoever listens that an order's rent was paid from the renter's balance (the
 * charge of the order, or of a renewal of it), to be written in the transaction that moved the money.
 */
export function paidFromBalance(paid: { paymentId: string; renterId: string; amount: number; orderId: string; at: Date }): EventToWrite {
  return {
    type: 'payment.succeeded',
    data: {
      payment_id: paid.paymentId,
      user_id: paid.renterId,
      amount: paid.amount,
      purpose: 'order',
      order_id: paid.orderId,
      gateway_txn_id: null,
      paid_at: paid.at.toISOString(),
    },
  };
}
