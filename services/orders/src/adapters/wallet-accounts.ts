import { chargeOrderEscrow, chargeOrderRenewal, orderChargeStatus, orderLedger, renewalChargeStatus, userAvailableBalance } from '@market/contracts';
import { RemoteRefusal, type InternalClient } from '@market/shared/http';
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
    chargeRenewal: async (renewal) => {
      try {
        const charged = await internal.call(chargeOrderRenewal, {
          params: { id: renewal.orderId, renewal_id: renewal.renewalId },
          body: { renter_id: renewal.renterId, amount: renewal.amount, not_after: renewal.notAfter.toISOString() },
        });
        return { charged };
      } catch (err) {
        // the wallet answered a refusal: its transaction moved nothing (a 5xx or no answer stays unknown)
        if (err instanceof RemoteRefusal && err.status < 500) return { refused: err };
        throw err;
      }
    },
    available: async (userId) => (await internal.call(userAvailableBalance, { params: { id: userId } })).available,
    renewalChargeStatus: (orderId, renewalId) => internal.call(renewalChargeStatus, { params: { id: orderId, renewal_id: renewalId } }),
  };
}
