import { SecretBox } from '@market/shared/crypto';
import { CreateOutboxAndInbox1763800000000, CreateWaitingEvents1765100000000 } from '@market/shared/events';
import { idempotencyMigrations } from '@market/shared/http';
import { defineService } from '@market/shared/service';
import { payeeDirectory, withdrawalSettings } from './adapters/payee-directory';
import { createPaymentChannels } from './adapters/providers';
import type { WalletDeps } from './application/deps';
import { receivePaygateNotification } from './application/receive-paygate-notification';
import { walletEnv } from './config';
import { walletEventHandlers } from './events/handlers';
import { walletErrorStatuses } from './http/error-statuses';
import { walletInternalRoutes } from './http/internal-routes';
import { walletRouteBindings } from './http/routes';
import { expireOverduePaymentsJob } from './jobs/expire-overdue-payments';
import { ledgerHeadAnchorJob } from './jobs/ledger-head-anchor';
import { queryPendingPaymentsJob } from './jobs/query-pending-payments';
import { reconcileYesterdayJob } from './jobs/reconcile-yesterday';
import { resolveDueRefundsJob } from './jobs/resolve-due-refunds';
import { resolveDueWithdrawalsJob } from './jobs/resolve-due-withdrawals';
import { CreateLedger1764000000000 } from './persistence/migrations/1764000000000-create-ledger';
import { CreateSandboxPayments1764000000001 } from './persistence/migrations/1764000000001-create-sandbox-payments';
import { IndexTransfersByTypeTime1764500000000 } from './persistence/migrations/1764500000000-index-transfers-by-type-time';
import { PaymentChannels1765400000001 } from './persistence/migrations/1765400000001-payment-channels';
import { CreateWithdrawals1765400000003 } from './persistence/migrations/1765400000003-create-withdrawals';
import { sealWithdrawalPayees } from './persistence/migrations/1766000000001-seal-withdrawal-payees';
import { WithdrawalLifecycle1766600000001 } from './persistence/migrations/1766600000001-withdrawal-lifecycle';
import { CreateRenewalCharges1767000000001 } from './persistence/migrations/1767000000001-create-renewal-charges';
import { CreateRefundsAndReconciliations1766500000050 } from './persistence/migrations/1766500000050-create-refunds-and-reconciliations';
import { ChainLedgerEntries1767200000001 } from './persistence/migrations/1767200000001-chain-ledger-entries';
import { registerWalletMetrics } from './business-metrics';

export const walletService = defineService({
  name: 'wallet',
  env: walletEnv,
  entities: [],
  errorStatuses: walletErrorStatuses,
  migrations: (config) => [
    CreateOutboxAndInbox1763800000000,
    ...idempotencyMigrations,
    CreateLedger1764000000000,
    CreateSandboxPayments1764000000001,
    IndexTransfersByTypeTime1764500000000,
    PaymentChannels1765400000001,
    CreateWithdrawals1765400000003,
    CreateWaitingEvents1765100000000,
    sealWithdrawalPayees(new SecretBox(config.DATA_ENCRYPTION_KEYS)),
    WithdrawalLifecycle1766600000001,
    CreateRefundsAndReconciliations1766500000050,
    CreateRenewalCharges1767000000001,
    ChainLedgerEntries1767200000001,
  ],
  build: (ctx) => {
    registerWalletMetrics(ctx);
    const channels = createPaymentChannels(ctx.config, ctx.db, ctx.log);
    const deps: WalletDeps = {
      db: ctx.db,
      events: ctx.events,
      log: ctx.log,
      channels: channels.enabled,
      gateways: channels.gateways,
      sandbox: channels.sandbox,
      alipay: channels.alipay,
      wechatpay: channels.wechatpay,
      currency: ctx.config.WALLET_CURRENCY,
      recharge: {
        minFen: ctx.config.RECHARGE_MIN_FEN,
        maxFen: ctx.config.RECHARGE_MAX_FEN,
        expiryMinutes: ctx.config.RECHARGE_EXPIRY_MINUTES,
        queryAfterMs: ctx.config.PAYMENT_QUERY_AFTER_MS,
      },
      paygateSecret: ctx.config.PAYGATE_SECRET,
      payouts: channels.payouts,
      payees: payeeDirectory(ctx.internal),
      withdrawalSettings: withdrawalSettings(ctx.internal),
      withdrawal: {
        recheckMs: ctx.config.WITHDRAWAL_CHECK_MS,
        recheckMaxMs: Math.max(ctx.config.WITHDRAWAL_CHECK_MS, ctx.config.WITHDRAWAL_CHECK_MAX_MS),
        alertAfterMs: ctx.config.WITHDRAWAL_UNKNOWN_ALERT_MS,
        reversalCheckAfterMs: ctx.config.WITHDRAWAL_REVERSAL_CHECK_MS === 0 ? null : ctx.config.WITHDRAWAL_REVERSAL_CHECK_MS,
      },
      secrets: new SecretBox(ctx.config.DATA_ENCRYPTION_KEYS),
      refunds: channels.refunds,
      bills: channels.bills,
      sandboxRefunds: channels.sandboxRefunds,
      refund: { recheckMs: ctx.config.REFUND_CHECK_MS },
      reconciliation: { afterMinutes: ctx.config.RECONCILIATION_AFTER },
    };
    channels.sandbox?.deliverCallbacksTo((raw, signature) => receivePaygateNotification(deps, raw, signature, null));
    return {
      routes: walletRouteBindings(deps),
      internal: walletInternalRoutes(deps),
      handlers: walletEventHandlers({ log: ctx.log, events: ctx.events }),
      jobs: [
        expireOverduePaymentsJob(deps, ctx.config.PAYMENT_EXPIRY_SCAN_MS, ctx.log),
        queryPendingPaymentsJob(deps, ctx.config.PAYMENT_QUERY_SCAN_MS, ctx.log),
        resolveDueWithdrawalsJob(deps, ctx.config.WITHDRAWAL_CHECK_MS, ctx.log),
        resolveDueRefundsJob(deps, ctx.config.REFUND_CHECK_MS, ctx.log),
        reconcileYesterdayJob(deps, ctx.config.RECONCILIATION_SCAN_MS, ctx.log),
        ledgerHeadAnchorJob(deps, ctx.log),
      ],
    };
  },
});
