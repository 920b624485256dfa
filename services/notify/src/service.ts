import { CreateOutboxAndInbox1763800000000, CreateWaitingEvents1765100000000 } from '@market/shared/events';
import { defineService } from '@market/shared/service';
import type { NotifyDeps } from './application/deps';
import { streamSource } from './application/stream-notifications';
import { notifyEnvShape } from './config';
import { notifyEventHandlers } from './events/handlers';
import { notifyErrorStatuses } from './http/error-statuses';
import { notifyRouteBindings } from './http/routes';
import { NotificationHub } from './live/notification-hub';
import { CreateNotifications1764000000000 } from './persistence/migrations/1764000000000-create-notifications';
import { notificationChannel } from './persistence/notification-repository';

export const notifyService = defineService({
  name: 'notify',
  env: notifyEnvShape,
  entities: [],
  migrations: [CreateOutboxAndInbox1763800000000, CreateNotifications1764000000000, CreateWaitingEvents1765100000000],
  errorStatuses: notifyErrorStatuses,
  build: async (ctx) => {
    const deps: NotifyDeps = { db: ctx.db, channel: notificationChannel(ctx.schema) };
    const hub = new NotificationHub({
      databaseUrl: ctx.config.DATABASE_URL,
      channel: deps.channel,
      log: ctx.log,
      source: streamSource(deps, ctx.revocations),
      heartbeatMs: ctx.config.NOTIFY_HEARTBEAT_MS,
      maxAgeMs: ctx.config.NOTIFY_STREAM_MAX_AGE_MS,
      maxStreamsPerUser: ctx.config.NOTIFY_MAX_STREAMS_PER_USER,
    });
    await hub.start();
    const stopListening = await ctx.revocations.listen(
      (notice) => hub.revoked(notice),
      (err) => ctx.log.warn({ err: { message: err.message } }, 'revocation subscription error; streams fall back to their heartbeat'),
    );
    ctx.metrics.scrapeGauge('market_notify_open_streams', 'Live notification streams open on this replica', [], () => [{ value: hub.openStreams }]);
    return {
      routes: notifyRouteBindings(deps, hub),
      handlers: notifyEventHandlers(deps.channel),
      // a notification is rows and a NOTIFY at commit, nothing outside the transaction
      batchEvents: true,
      beforeStop: async () => {
        await stopListening();
        await hub.stop();
      },
    };
  },
});
