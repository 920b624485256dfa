import {
  chargeOrderEscrow as chargeContract,
  chargeOrderRenewal as chargeRenewalContract,
  escrowMoneyFacts,
  ledgerVerification,
  orderChargeStatus,
  orderEscrow,
  orderLedger,
  rechargeDiscrepancies,
  renewalChargeStatus,
  userAvailableBalance,
  walletStats,
} from '@market/contracts';
import { internalRoute, type InternalBinding } from '@market/shared/http';
import { chargeOrderEscrow } from '../application/charge-order-escrow';
import { chargeOrderRenewal, readRenewalChargeStatus } from '../application/charge-order-renewal';
import type { WalletDeps } from '../application/deps';
import { readChargeStatus } from '../application/read-charge-status';
import { readEscrowMoneyFacts, readRechargeDiscrepancies } from '../application/read-money-facts';
import { readAvailable, readOrderEscrow, readOrderLedger } from '../application/read-wallet';
import { readWalletStats } from '../application/read-wallet-stats';
import { verifyWalletLedger } from '../application/verify-ledger';

/** `/internal/*` for other services, by their shared contracts. */
export function walletInternalRoutes(deps: WalletDeps): InternalBinding[] {
  return [
    internalRoute(chargeContract, ({ params, body }) => chargeOrderEscrow(deps, params.id, body)),
    internalRoute(orderChargeStatus, ({ params }) => readChargeStatus(deps, params.id)),
    internalRoute(chargeRenewalContract, ({ params, body }) => chargeOrderRenewal(deps, params.id, params.renewal_id, body)),
    internalRoute(renewalChargeStatus, ({ params }) => readRenewalChargeStatus(deps, params.id, params.renewal_id)),
    internalRoute(orderEscrow, ({ params }) => readOrderEscrow(deps, params.id)),
    internalRoute(orderLedger, ({ params }) => readOrderLedger(deps, params.id)),
    internalRoute(userAvailableBalance, ({ params }) => readAvailable(deps, params.id)),
    internalRoute(walletStats, () => readWalletStats(deps)),
    internalRoute(escrowMoneyFacts, ({ query }) => readEscrowMoneyFacts(deps, query)),
    internalRoute(rechargeDiscrepancies, () => readRechargeDiscrepancies(deps)),
    internalRoute(ledgerVerification, () => verifyWalletLedger(deps)),
  ];
}
