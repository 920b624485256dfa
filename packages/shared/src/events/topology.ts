import type { Channel } from 'amqplib';
import { eventConsumers, eventProducers, type EventType, SERVICE_NAMES } from '@market/contracts';

export const DEFAULT_EXCHANGE = 'marketplace.events';

/** Unconsumed events wait here this long for a consumer to be declared (ADR 0011). */
export const HOLDING_TTL_MS = 7 * 24 * 3600_000;

/**
 * The generation of the queue names: queues of generation 2 are quorum queues (ADR 0062). RabbitMQ
 * cannot turn a classic queue into a quorum queue under the same name, so the new queues carry the
 * generation in their names and `migrateLegacyQueues` empties the classic ones of generation 1 into
 * them.
 */
export const QUEUE_GENERATION = 2;

/**
 * The stem of one consumer's names: the production exchange keeps the contract's names
 * (`catalog.events`); any other exchange (a test stack, a second environment on one broker) prefixes
 * them with its own name, so two exchanges never share a queue and every process of one exchange
 * computes the same names.
 */
function consumerStem(service: string, exchange: string): string {
  return exchange === DEFAULT_EXCHANGE ? `${service}.events` : `${exchange}.${service}.events`;
}

/** One consumer's queues: `catalog.events.v2`, its `.retry` and its `.dlq`. */
export function queueNames(service: string, exchange: string = DEFAULT_EXCHANGE) {
  const main = `${consumerStem(service, exchange)}.v${QUEUE_GENERATION}`;
  return { main, retry: `${main}.retry`, dead: `${main}.dlq` };
}

/** The classic queues of generation 1 (`catalog.events`, `.retry`, `.dlq`), which an upgrade empties and deletes. */
export function legacyQueueNames(service: string, exchange: string = DEFAULT_EXCHANGE) {
  const main = consumerStem(service, exchange);
  return { main, retry: `${main}.retry`, dead: `${main}.dlq` };
}

/**
 * How often the broker hands out one message of a consumer's queue again after a delivery that
 * ended unsettled (not acked, nor moved to the retry queue or DLQ) before it dead-letters it into the DLQ: a message that kills or
 * hangs its consumer every time would otherwise be redelivered for ever. The consumer parks such a
 * message itself, with its alerts, at `UNSETTLED_DELIVERY_LIMIT`; this is the broker's backstop.
 */
export const BROKER_DELIVERY_LIMIT = 20;

/**
 * Where a quorum queue moves a message (the retry queue's expired ones into the main queue, the
 * main queue's over-delivered ones into the DLQ): at-least-once, so a message is removed from its
 * queue only once the target confirmed it, and a node lost meanwhile loses nothing. RabbitMQ allows
 * that strategy only with `reject-publish` overflow; the queues have no length limit, so it never rejects.
 */
function deadLetterInto(queue: string) {
  return {
    'x-dead-letter-exchange': '',
    'x-dead-letter-routing-key': queue,
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
  };
}

const QUORUM = { 'x-queue-type': 'quorum' } as const;

/**
 * The topic exchange one service publishes on, and nobody else may (ADR 0054): `exchange` names the
 * environment, each service has its own exchange under it, bound into the queues of the services
 * that consume its types.
 */
export function producerExchange(exchange: string, service: string): string {
  return `${exchange}.${service}`;
}

/** Which service's exchange `name` is, if it is one of `exchange`'s. */
export function serviceOfExchange(exchange: string, name: string): string | undefined {
  return SERVICE_NAMES.find((service) => producerExchange(exchange, service) === name);
}

/**
 * A consumer's own way into its retry queue and DLQ (direct, keys `retry` and `dead`): the default
 * exchange would let whoever may write to it fill any queue, so no service may, and each writes only
 * its own plumbing.
 */
export function plumbingExchange(service: string, exchange: string = DEFAULT_EXCHANGE): string {
  return `${consumerStem(service, exchange)}.plumbing`;
}

/** The alternate exchange and its holding queue: what no service consumes lands there instead of vanishing. */
export function unroutedNames(exchange: string) {
  return { exchange: `${exchange}.unrouted`, queue: `${exchange}.unrouted.v${QUEUE_GENERATION}` };
}

/** The classic holding queue of generation 1. */
export function legacyUnroutedQueue(exchange: string): string {
  return `${exchange}.unrouted`;
}

/**
 * Declares one consumer's quorum queues (ADR 0062): the main queue, which dead-letters into the DLQ
 * a message delivered more than `BROKER_DELIVERY_LIMIT` times without being settled; the retry queue, whose
 * messages wait out their per-message TTL and dead-letter back into the main queue; the DLQ. Then its
 * plumbing exchange, and the bindings of its main queue from the exchange of every producer of its types.
 */
export async function declareConsumerQueues(channel: Channel, exchange: string, service: string, types: readonly EventType[]) {
  const { main, retry, dead } = queueNames(service, exchange);
  await channel.assertQueue(main, {
    durable: true,
    arguments: { ...QUORUM, 'x-delivery-limit': BROKER_DELIVERY_LIMIT, ...deadLetterInto(dead) },
  });
  await channel.assertQueue(retry, { durable: true, arguments: { ...QUORUM, ...deadLetterInto(main) } });
  await channel.assertQueue(dead, { durable: true, arguments: QUORUM });
  const plumbing = plumbingExchange(service, exchange);
  await channel.assertExchange(plumbing, 'direct', { durable: true });
  await channel.bindQueue(retry, plumbing, 'retry');
  await channel.bindQueue(dead, plumbing, 'dead');
  for (const type of types) {
    for (const producer of eventProducers[type]) await channel.bindQueue(main, producerExchange(exchange, producer), type);
  }
}

/**
 * The whole topology of one exchange, from the contracts: one topic exchange per service with the
 * common alternate exchange and its holding queue, and every consuming service's queues, plumbing
 * and bindings. Idempotent. Declared by whoever provisions the broker (scripts/provision-broker.mjs,
 * the testkit) and, where the connection's user may, by every process on every (re)connect before
 * any channel is handed out, so no relay publishes into a topology that does not exist yet.
 */
export async function declareTopology(channel: Channel, exchange: string) {
  const unrouted = unroutedNames(exchange);
  await channel.assertExchange(unrouted.exchange, 'fanout', { durable: true });
  await channel.assertQueue(unrouted.queue, { durable: true, arguments: { ...QUORUM, 'x-message-ttl': HOLDING_TTL_MS } });
  await channel.bindQueue(unrouted.queue, unrouted.exchange, '');
  for (const service of SERVICE_NAMES) {
    await channel.assertExchange(producerExchange(exchange, service), 'topic', { durable: true, alternateExchange: unrouted.exchange });
  }
  for (const service of SERVICE_NAMES) {
    const types = eventConsumers[service];
    if (types.length > 0) await declareConsumerQueues(channel, exchange, service, types);
  }
}

/**
 * What a service user, who may declare nothing, checks exists before it starts (passive
 * declarations need no permission): its exchange and, when it consumes, its queues and plumbing.
 */
export async function checkServiceTopology(channel: Channel, exchange: string, service: string) {
  await channel.checkExchange(producerExchange(exchange, service));
  if ((eventConsumers as Record<string, readonly EventType[]>)[service]?.length) {
    for (const queue of Object.values(queueNames(service, exchange))) await channel.checkQueue(queue);
    await channel.checkExchange(plumbingExchange(service, exchange));
  }
}

/** Every queue the topology of `exchange` declares (test clean-up, operator tools). */
export function topologyQueues(exchange: string): string[] {
  return [
    unroutedNames(exchange).queue,
    ...SERVICE_NAMES.filter((s) => eventConsumers[s].length > 0).flatMap((s) => Object.values(queueNames(s, exchange))),
  ];
}

/** Every exchange the topology of `exchange` declares, besides the holding queue's. */
export function topologyExchanges(exchange: string): string[] {
  return [
    ...SERVICE_NAMES.map((s) => producerExchange(exchange, s)),
    ...SERVICE_NAMES.filter((s) => eventConsumers[s].length > 0).map((s) => plumbingExchange(s, exchange)),
  ];
}
