import { ConfigError, inDevelopment } from '@market/shared/config';
import { SecretBox } from '@market/shared/crypto';
import { CreateOutboxAndInbox1763800000000 } from '@market/shared/events';
import { idempotencyMigrations } from '@market/shared/http';
import { defineService } from '@market/shared/service';
import { configSource } from './adapters/config-source';
import { fileRegistry } from './adapters/file-registry';
import { listingDirectory } from './adapters/listing-directory';
import { userBlocks, userDirectory } from './adapters/user-directory';
import { walletAccounts } from './adapters/wallet-accounts';
import type { OrdersDeps } from './application/deps';
import { RecentOrders } from './application/recent-orders';
import { loadSettingsFromAdmin } from './application/settings';
import { SettingsCache, settingsChannel } from './application/settings-cache';
import { ordersEnvShape } from './config';
import { ordersEventHandlers } from './events/handlers';
import { ordersErrorStatuses } from './http/error-statuses';
import { ordersInternalRoutes } from './http/internal-routes';
import { ratingRouteBindings } from './http/rating-routes';
import { ordersRouteBindings } from './http/routes';
import { chargeReconciler } from './jobs/charge-reconciler';
import { renewalReconciler } from './jobs/renewal-reconciler';
import { endReminder } from './jobs/end-reminder';
import { ratingPublisher } from './jobs/rating-publisher';
import { settingsLoader } from './jobs/settings-loader';
import { settingsWatcher } from './jobs/settings-watcher';
import { timeoutScan } from './jobs/timeout-scan';
import { CreateOrders1764000000000 } from './persistence/migrations/1764000000000-create-orders';
import { BackOfficeIndexes1764100000000 } from './persistence/migrations/1764100000000-back-office-indexes';
import { IndexOrderStats1764500000000 } from './persistence/migrations/1764500000000-index-order-stats';
import { RecordChargeRequests1765200000001 } from './persistence/migrations/1765200000001-record-charge-requests';
import { RevealRequests1765300000000 } from './persistence/migrations/1765300000000-reveal-requests';
import { ConfigTimesAndOrderVersions1766300000001 } from './persistence/migrations/1766300000001-config-times-and-order-versions';
import { OrderRenewals1767000000001 } from './persistence/migrations/1767000000001-order-renewals';
import { RenterBlocks1767000000002 } from './persistence/migrations/1767000000002-renter-blocks';
import { EndReminders1767000000003 } from './persistence/migrations/1767000000003-end-reminders';
import { CreateRatings1767100000000 } from './persistence/migrations/1767100000000-create-ratings';
import { CheckoutOvertime1767300000000 } from './persistence/migrations/1767300000000-checkout-overtime';
import { EveryOrderWriteAVersion1767400000000 } from './persistence/migrations/1767400000000-every-order-write-a-version';
import { registerOrderMetrics } from './business-metrics';

export const ordersService = defineService({
  name: 'orders',
  env: ordersEnvShape,
  entities: [],
  errorStatuses: ordersErrorStatuses,
  migrations: [
    CreateOutboxAndInbox1763800000000,
    ...idempotencyMigrations,
    CreateOrders1764000000000,
    BackOfficeIndexes1764100000000,
    IndexOrderStats1764500000000,
    RecordChargeRequests1765200000001,
    RevealRequests1765300000000,
    ConfigTimesAndOrderVersions1766300000001,
    OrderRenewals1767000000001,
    RenterBlocks1767000000002,
    EndReminders1767000000003,
    CreateRatings1767100000000,
    CheckoutOvertime1767300000000,
    EveryOrderWriteAVersion1767400000000,
  ],
  build: (ctx) => {
    registerOrderMetrics(ctx);
    if (!inDevelopment(ctx.config) && ctx.config.ORDER_MINUTE_MS !== 60_000) {
      throw new ConfigError(`NODE_ENV is ${ctx.config.NODE_ENV}, not development: ORDER_MINUTE_MS is for tests only, thresholds are in real minutes`);
    }
    if (!inDevelopment(ctx.config) && ctx.config.RATING_DAY_MS !== 86_400_000) {
      throw new ConfigError(`NODE_ENV is ${ctx.config.NODE_ENV}, not development: RATING_DAY_MS is for tests only, the rating window is in real days`);
    }
    const deps: OrdersDeps = {
      db: ctx.db,
      events: ctx.events,
      secrets: new SecretBox(ctx.config.DATA_ENCRYPTION_KEYS),
      listings: listingDirectory(ctx.internal),
      users: userDirectory(ctx.internal),
      blocks: userBlocks(ctx.revocations),
      wallet: walletAccounts(ctx.internal),
      files: fileRegistry(ctx.internal),
      configSource: configSource(ctx.internal),
      recentOrders: new RecentOrders(),
      settings: new SettingsCache(settingsChannel(ctx.schema), ctx.config.ORDER_SETTINGS_MAX_AGE_MS),
      minuteMs: ctx.config.ORDER_MINUTE_MS,
      chargeWindowMs: ctx.config.ORDER_CHARGE_WINDOW_MS,
      ratingDayMs: ctx.config.RATING_DAY_MS,
    };
    return {
      routes: [...ordersRouteBindings(deps), ...ratingRouteBindings(deps)],
      internal: ordersInternalRoutes(deps),
      handlers: ordersEventHandlers(deps),
      jobs: [
        settingsWatcher(deps.settings, ctx.config.DATABASE_URL, ctx.log),
        settingsLoader(() => loadSettingsFromAdmin(deps), ctx.config.SETTINGS_RETRY_MS, ctx.log),
        timeoutScan(deps, ctx.config.ORDER_SCAN_INTERVAL_MS, ctx.log),
        chargeReconciler(deps, ctx.config.ORDER_RECONCILE_INTERVAL_MS, ctx.log),
        renewalReconciler(deps, ctx.config.ORDER_RECONCILE_INTERVAL_MS, ctx.log),
        endReminder(deps, ctx.config.ORDER_SCAN_INTERVAL_MS, ctx.log),
        ratingPublisher(deps, ctx.config.RATING_PUBLISH_INTERVAL_MS, ctx.log),
      ],
    };
  },
});
