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
 * handler's call counts each of its events under its type, and is timed as one call of each type it
 * carried.
 */
export function instrumentHandlers(metrics: Metrics, handlers: EventHandlers): EventHandlers {
  const handled = metrics.counter('market_events_handled_total', 'Event handler runs by event type and outcome (handled, failed: retried or parked)', [
    'type',
    'outcome',
  ]);
  const duration = metrics.histogram('market_event_handler_duration_seconds', 'Event handler duration by event type, per call', ['type']);
  /** Runs a handler's call and counts it under each type it carried, with how many events of that type. */
  const observed = async (types: ReadonlyMap<EventType, number>, work: () => Promise<void>) => {
    const started = performance.now();
    let outcome = 'failed';
    try {
      await work();
      outcome = 'handled';
    } finally {
      const seconds = (performance.now() - started) / 1000;
      for (const [type, events] of types) {
        handled.inc({ type, outcome }, events);
        duration.observe({ type }, seconds);
      }
    }
  };
  // a run handler given for several types is wrapped once, so the inbox still sees one handler and
  // hands it their events mixed in one run (`runsOfOneHandler`)
  const runHandlers = new Map<AnyEventHandler, AnyEventHandler>();
  const instrumented: Record<string, AnyEventHandler> = {};
  for (const [type, handler] of Object.entries(handlers) as Array<[EventType, AnyEventHandler]>) {
    if (typeof handler === 'function') {
      const one = new Map([[type, 1]]);
      instrumented[type] = (event, tx) => observed(one, () => handler(event, tx));
      continue;
    }
    let wrapped = runHandlers.get(handler);
    if (!wrapped) {
      wrapped = { together: (events, tx) => observed(typeCounts(events), () => handler.together(events, tx)) };
      runHandlers.set(handler, wrapped);
    }
    instrumented[type] = wrapped;
  }
  return instrumented as EventHandlers;
}

function typeCounts(events: ReadonlyArray<{ type: EventType }>): Map<EventType, number> {
  const counts = new Map<EventType, number>();
  for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  return counts;
}
