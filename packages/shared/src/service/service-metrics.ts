import type { Channel } from 'amqplib';
import type { DataSource } from 'typeorm';
import type { EventType } from '@market/contracts';
import type { Bus } from '../events/bus';
import { closeQuietly } from '../events/bus';
import type { AnyEventHandler, EventHandlers } from '../events/event-handlers';
import { queueNames } from '../events/topology';
import { Metrics } from '../metrics/registry';

/** The pg pool under TypeORM's Postgres driver (its `master`), for its counts. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The kit's own metrics of a service: its database pool, its outbox, its event consumer (handled
 * by type with duration, failed attempts, retry and dead-letter queue depth). HTTP requests are
 * observed by the service app; business figures are added by each service (`ctx.metrics`).
 */
export function serviceMetrics(service: string, dataSource: DataSource, bus: Bus, consumesEvents: boolean): { metrics: Metrics; close: () => Promise<void> } {
  const metrics = new Metrics(service);
  const pool = () => (dataSource.driver as unknown as { master?: PoolCounts }).master;

  metrics.scrapeGauge('market_db_pool_connections', 'Database pool connections by state: in_use, idle, and requests waiting for one', ['state'], () => {
    const counts = pool();
    if (!counts) return [];
    return [
      { labels: { state: 'in_use' }, value: counts.totalCount - counts.idleCount },
      { labels: { state: 'idle' }, value: counts.idleCount },
      { labels: { state: 'waiting' }, value: counts.waitingCount },
    ];
  });
  metrics.scrapeGauge('market_db_pool_max', 'Largest size of the database pool', [], () => [
    { value: (dataSource.options.extra as { max?: number } | undefined)?.max ?? 10 },
  ]);

  const outbox = async () =>
    (await dataSource.query(
      `SELECT count(*)::int AS pending, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float AS oldest
         FROM outbox WHERE published_at IS NULL`,
    )) as Array<{ pending: number; oldest: number }>;
  metrics.scrapeGauge('market_outbox_pending', 'Events written to the outbox and not yet confirmed by the broker', [], async () => [
    { value: (await outbox())[0]!.pending },
  ]);
  metrics.scrapeGauge('market_outbox_oldest_pending_seconds', 'Age of the oldest unpublished outbox event (0 when none waits)', [], async () => [
    { value: (await outbox())[0]!.oldest },
  ]);

  const queues = queueNames(service, bus.exchange);
  let channel: Promise<Channel> | null = null;
  /** A queue's depth through one channel kept for scrapes; a failed check (queue not declared, broker away) drops the channel. */
  const depth = async (queue: string): Promise<number> => {
    channel ??= bus.confirmChannel().then((c) => {
      c.on('close', () => {
        channel = null;
      });
      return c;
    });
    try {
      return (await (await channel).checkQueue(queue)).messageCount;
    } catch (err) {
      channel = null;
      throw err;
    }
  };
  if (consumesEvents) {
    metrics.scrapeGauge('market_events_dlq_depth', 'Events parked in the service\'s dead-letter queue, waiting for an operator (npm run dlq)', [], async () => [
      { value: await depth(queues.dead) },
    ]);
    metrics.scrapeGauge('market_events_retry_depth', 'Events waiting in the retry queue for their next attempt', [], async () => [
      { value: await depth(queues.retry) },
    ]);
  }

  return {
    metrics,
    close: async () => {
      const open = channel;
      channel = null;
      if (open) await closeQuietly(await open.catch(() => null));
    },
  };
}

/**
 * The handlers, each timed and counted: handled (the inbox transaction's work ran; a duplicate
 * never reaches a handler) or failed (the attempt throws, and the inbox retries or parks it). A run
 * handler's call counts each of its events and is timed as one.
 */
export function instrumentHandlers(metrics: Metrics, handlers: EventHandlers): EventHandlers {
  const handled = metrics.counter('market_events_handled_total', 'Event handler runs by event type and outcome (handled, failed: retried or parked)', [
    'type',
    'outcome',
  ]);
  const duration = metrics.histogram('market_event_handler_duration_seconds', 'Event handler duration by event type, per call', ['type']);
  const observed = async (type: EventType, events: number, work: () => Promise<void>) => {
    const end = duration.startTimer({ type });
    try {
      await work();
      handled.inc({ type, outcome: 'handled' }, events);
    } catch (err) {
      handled.inc({ type, outcome: 'failed' }, events);
      throw err;
    } finally {
      end();
    }
  };
  const instrumented: Record<string, AnyEventHandler> = {};
  for (const [type, handler] of Object.entries(handlers) as Array<[EventType, AnyEventHandler]>) {
    instrumented[type] =
      typeof handler === 'function'
        ? (event, tx) => observed(type, 1, () => handler(event, tx))
        : { together: (events, tx) => observed(type, events.length, () => handler.together(events, tx)) };
  }
  return instrumented as EventHandlers;
}
