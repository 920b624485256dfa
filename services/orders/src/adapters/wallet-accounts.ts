import { chargeOrderEscrow, orderChargeStatus, orderLedger } from '@market/contracts';
import { type InternalClient } from '@market/shared/http';
import type { WalletAccounts } from '../application/ports';

export function walletAccounts(internal: InternalClient): WalletAccounts {
  return {
    charge: (order) =>
      internal.call(chargeOrderEscrow, {
        params: { id: order.id },
        body: { renter_id: order.renter_id, owner_id: order.owner_id, amount: order.amount, not_after: order.not_after.toISOString() },
      }),
    chargeStatus: (orderId) => internal.call(orderChargeStatus, { params: { id: orderId } }),
    ledger: (orderId) => internal.call(orderLedger, { params: { id: orderId } }),
  };
}
