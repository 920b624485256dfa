import type { Channel } from 'amqplib';
import { eventConsumers, type EventType, SERVICE_NAMES } from '@market/contracts';

export const DEFAULT_EXCHANGE = 'marketplace.events';

/** Unconsumed events wait here this long for a consumer to be declared (ADR 0011). */
export const HOLDING_TTL_MS = 7 * 24 * 3600_000;

/**
 * The production exchange keeps the contract's queue names (`catalog.events`); any other exchange
 * (a test stack, a second environment on one broker) prefixes its queues with its own name, so
 * two exchanges never share a queue and every process of one exchange computes the same names.
 */
export function queueNames(service: string, exchange: string = DEFAULT_EXCHANGE) {
  const main = exchange === DEFAULT_EXCHANGE ? `${service}.events` : `${exchange}.${service}.events`;
  return { main, retry: `${main}.retry`, dead: `${main}.dlq` };
}

/** The alternate exchange and its holding queue: what no service consumes lands there instead of vanishing. */
export function unroutedNames(exchange: string) {
  return { exchange: `${exchange}.unrouted`, queue: `${exchange}.unrouted` };
}

/** Declares one consumer's queues (main, retry that dead-letters back into main, DLQ) and its bindings. */
export async function declareConsumerQueues(channel: Channel, exchange: string, service: string, types: readonly EventType[]) {
  const { main, retry, dead } = queueNames(service, exchange);
  await channel.assertQueue(main, { durable: true });
  await channel.assertQueue(retry, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': main },
  });
  await channel.assertQueue(dead, { durable: true });
  for (const type of types) await channel.bindQueue(main, exchange, type);
}

/**
 * The whole topology of one exchange, from the contracts: the topic exchange with its alternate
 * exchange and holding queue, and every consuming service's queues and bindings. Idempotent;
 * runs on every (re)connect before any channel is handed out, so no relay publishes into a
 * topology that does not exist yet.
 */
export async function declareTopology(channel: Channel, exchange: string) {
  const unrouted = unroutedNames(exchange);
  await channel.assertExchange(unrouted.exchange, 'fanout', { durable: true });
  await channel.assertQueue(unrouted.queue, { durable: true, arguments: { 'x-message-ttl': HOLDING_TTL_MS } });
  await channel.bindQueue(unrouted.queue, unrouted.exchange, '');
  await channel.assertExchange(exchange, 'topic', { durable: true, alternateExchange: unrouted.exchange });
  for (const service of SERVICE_NAMES) {
    const types = eventConsumers[service];
    if (types.length > 0) await declareConsumerQueues(channel, exchange, service, types);
  }
}

/** Every queue the topology of `exchange` declares (test clean-up, operator tools). */
export function topologyQueues(exchange: string): string[] {
  return [
    unroutedNames(exchange).queue,
    ...SERVICE_NAMES.filter((s) => eventConsumers[s].length > 0).flatMap((s) => Object.values(queueNames(s, exchange))),
  ];
}
