import type { Tx } from '@market/shared/db';
import { orderEscrow, userAvailable } from '../domain/accounts';
import { InsufficientBalance } from '../domain/errors';
import { InsufficientFunds } from '../domain/ledger';
import { planTransfers, type LedgerWrite } from '../persistence/ledger-repository';

/**
 * The renter's rent moving from their available balance into the order's escrow (an order's charge,
 * or a renewal's), planned on the accounts locked now: a balance that falls short is 409
 * INSUFFICIENT_BALANCE, with nothing written.
 */
export async function planEscrowPayment(
  tx: Tx,
  payment: { renterId: string; orderId: string; amount: number; paymentId: string },
  at: Date,
): Promise<LedgerWrite | null> {
  const { renterId, orderId, amount, paymentId } = payment;
  try {
    return await planTransfers(tx, [{ from: userAvailable(renterId), to: orderEscrow(orderId), amount, bizType: 'order_payment', orderId, paymentId }], at);
  } catch (err) {
    if (err instanceof InsufficientFunds) throw new InsufficientBalance(err.balance, amount, 'pay');
    throw err;
  }
}
