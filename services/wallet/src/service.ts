import { CreateOutboxAndInbox1763800000000 } from '@market/shared/events';
import { idempotencyMigrations } from '@market/shared/http';
import { defineService, periodicJob } from '@market/shared/service';
import { createPaymentGateway } from './adapters/providers';
import type { WalletDeps } from './application/deps';
import { receivePaygateNotification } from './application/receive-paygate-notification';
import { expireOverduePayments } from './application/recharge';
import { walletEnv } from './config';
import { walletEventHandlers } from './events/handlers';
import { walletInternalRoutes } from './http/internal-routes';
import { walletRouteBindings } from './http/routes';
import { CreateLedger1764000000000 } from './persistence/migrations/1764000000000-create-ledger';
import { CreateSandboxPayments1764000000001 } from './persistence/migrations/1764000000001-create-sandbox-payments';
import { IndexTransfersByTypeTime1764500000000 } from './persistence/migrations/1764500000000-index-transfers-by-type-time';
import { registerWalletMetrics } from './business-metrics';

export const walletService = defineService({
  name: 'wallet',
  env: walletEnv,
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, ...idempotencyMigrations, CreateLedger1764000000000, CreateSandboxPayments1764000000001, IndexTransfersByTypeTime1764500000000],
  build: (ctx) => {
    registerWalletMetrics(ctx);
    const sandbox = createPaymentGateway(ctx.config, ctx.db, ctx.log);
    const deps: WalletDeps = {
      db: ctx.db,
      events: ctx.events,
      log: ctx.log,
      gateway: sandbox,
      sandbox,
      currency: ctx.config.WALLET_CURRENCY,
      recharge: {
        minFen: ctx.config.RECHARGE_MIN_FEN,
        maxFen: ctx.config.RECHARGE_MAX_FEN,
        expiryMinutes: ctx.config.RECHARGE_EXPIRY_MINUTES,
      },
      paygateSecret: ctx.config.PAYGATE_SECRET,
    };
    sandbox.deliverCallbacksTo((raw, signature) => receivePaygateNotification(deps, raw, signature, null));
    return {
      routes: walletRouteBindings(deps),
      internal: walletInternalRoutes(deps),
      handlers: walletEventHandlers(ctx.log),
      jobs: [periodicJob('expire overdue recharge payments', ctx.config.PAYMENT_EXPIRY_SCAN_MS, () => expireOverduePayments(deps), ctx.log)],
    };
  },
});
