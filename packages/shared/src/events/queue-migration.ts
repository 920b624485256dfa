import type { Channel, ChannelModel, ConfirmChannel, GetMessage } from 'amqplib';
import { eventConsumers, eventProducers, SERVICE_NAMES } from '@market/contracts';
import { legacyQueueNames, legacyUnroutedQueue, plumbingExchange, producerExchange, queueNames, unroutedNames } from './topology';

/** One classic queue of generation 1 and the quorum queue its messages go to. */
interface LegacyQueue {
  queue: string;
  into: string;
  /** the bindings it had: the upgrade removes them first, so nothing new lands in it */
  bindings: Array<{ exchange: string; key: string }>;
}

export interface MigrationReport {
  /** messages moved, by the legacy queue they came from */
  moved: Record<string, number>;
  /** legacy queues emptied and deleted */
  deleted: string[];
  /** legacy queues left because a consumer still holds them (a process of the old release): run the migration again once it stopped */
  inUse: string[];
}

/**
 * Every classic queue of generation 1 of `exchange`, in the order they are emptied: a retry queue
 * before its main queue, since its expiring messages dead-letter into that main queue by name.
 */
function legacyQueues(exchange: string): LegacyQueue[] {
  const queues: LegacyQueue[] = [];
  for (const service of SERVICE_NAMES) {
    const types = eventConsumers[service];
    if (types.length === 0) continue;
    const legacy = legacyQueueNames(service, exchange);
    const current = queueNames(service, exchange);
    const plumbing = plumbingExchange(service, exchange);
    queues.push(
      // a message waiting for its retry is handled at once instead: an early attempt, nothing more
      { queue: legacy.retry, into: current.main, bindings: [{ exchange: plumbing, key: 'retry' }] },
      {
        queue: legacy.main,
        into: current.main,
        bindings: types.flatMap((type) => eventProducers[type].map((producer) => ({ exchange: producerExchange(exchange, producer), key: type }))),
      },
      { queue: legacy.dead, into: current.dead, bindings: [{ exchange: plumbing, key: 'dead' }] },
    );
  }
  queues.push({ queue: legacyUnroutedQueue(exchange), into: unroutedNames(exchange).queue, bindings: [{ exchange: unroutedNames(exchange).exchange, key: '' }] });
  return queues;
}

/** Runs `work` on a channel of its own: a refused passive check or conditional delete closes the channel it ran on. */
async function onOwnChannel<T>(connection: ChannelModel, work: (channel: Channel) => Promise<T>): Promise<T | null> {
  const channel = await connection.createChannel();
  channel.on('error', () => undefined);
  try {
    const result = await work(channel);
    await channel.close();
    return result;
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === 404 || code === 406) return null;
    throw err;
  }
}

const MOVE_BATCH = 100;

/**
 * Moves every message of `from` into `into` through the default exchange, a batch at a time: each
 * taken unacked, republished, confirmed by the broker, and only then acked, so a failure at any
 * point leaves every message in one queue or (harmlessly, the inbox absorbs it) in both. The broker
 * vouched for the sender when the message was first published: that user goes with it in
 * `x-broker-user`, as a consumer's own retries carry it (ADR 0054), and the `user_id` property,
 * which the broker would now check against this connection's user, is dropped.
 */
async function moveMessages(channel: ConfirmChannel, from: string, into: string): Promise<number> {
  let moved = 0;
  for (;;) {
    const batch: GetMessage[] = [];
    while (batch.length < MOVE_BATCH) {
      const message = await channel.get(from, { noAck: false });
      if (!message) break;
      batch.push(message);
    }
    if (batch.length === 0) return moved;
    for (const message of batch) {
      const { userId, headers, ...properties } = message.properties;
      const vouched = headers?.['x-broker-user'] ?? userId;
      channel.sendToQueue(into, message.content, {
        ...definedOnly(properties),
        headers: { ...headers, ...(vouched ? { 'x-broker-user': vouched } : {}) },
        persistent: true,
      });
    }
    await channel.waitForConfirms();
    channel.ack(batch[batch.length - 1]!, true);
    moved += batch.length;
  }
}

function definedOnly(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined));
}

/**
 * The upgrade to quorum queues (ADR 0062), run by the provisioning after it declared the new
 * topology, as a user who may configure every queue: each classic queue of generation 1 that still
 * exists is unbound (new events already reach its quorum successor), emptied into that successor and
 * deleted, but only if empty and no consumer holds it. A queue a process of the old release still
 * consumes is left as it is and reported: that process drains it, or the next run, once it stopped,
 * moves what it left. Idempotent; a broker with no legacy queue is left untouched.
 */
export async function migrateLegacyQueues(connection: ChannelModel, exchange: string): Promise<MigrationReport> {
  const report: MigrationReport = { moved: {}, deleted: [], inUse: [] };
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => undefined);
  try {
    for (const legacy of legacyQueues(exchange)) {
      const present = await onOwnChannel(connection, (c) => c.checkQueue(legacy.queue));
      if (!present) continue;
      // the default exchange drops, confirmed, what it cannot route: the successor must be there first
      if (!(await onOwnChannel(connection, (c) => c.checkQueue(legacy.into)))) {
        throw new Error(`${legacy.into} does not exist: declare the topology before moving ${legacy.queue} into it`);
      }
      for (const { exchange: source, key } of legacy.bindings) {
        await onOwnChannel(connection, (c) => c.unbindQueue(legacy.queue, source, key));
      }
      const moved = await moveMessages(channel, legacy.queue, legacy.into);
      if (moved > 0) report.moved[legacy.queue] = moved;
      const deleted = await onOwnChannel(connection, (c) => c.deleteQueue(legacy.queue, { ifEmpty: true, ifUnused: true }));
      if (deleted) report.deleted.push(legacy.queue);
      else report.inUse.push(legacy.queue);
    }
  } finally {
    await channel.close().catch(() => undefined);
  }
  return report;
}
