#!/usr/bin/env node
// Dead-letter queue inspection and replay for one service's consumer.
//   npm run dlq -- list catalog            show parked messages (type, id, attempts, last error)
//   npm run dlq -- replay catalog [--limit N]   move them back to catalog.events for another try
// Messages keep their event id, so a replay of an event that was in fact handled changes nothing.
// Queue names follow EVENTS_EXCHANGE (ADR 0011); needs `npm run build` (they come from the shared kit).
import { createRequire } from 'node:module';

const { queueNames, connectFirstAnswering, DEFAULT_EXCHANGE } = createRequire(import.meta.url)('../packages/shared/dist/events/index.js');

const [command, service, ...rest] = process.argv.slice(2);
const limitIndex = rest.indexOf('--limit');
const limit = limitIndex >= 0 ? Number(rest[limitIndex + 1]) : Infinity;
if (!['list', 'replay'].includes(command) || !service) {
  console.error('usage: npm run dlq -- list|replay <service> [--limit N]');
  process.exit(2);
}

const { main, dead } = queueNames(service, process.env.EVENTS_EXCHANGE ?? DEFAULT_EXCHANGE);
// AMQP_URL may list a cluster's nodes (ADR 0062): the first that answers serves.
const connection = await connectFirstAnswering(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
const channel = await connection.createConfirmChannel();
const { messageCount } = await channel.checkQueue(dead);
console.log(`${dead}: ${messageCount} message(s)`);

let handled = 0;
const held = [];
while (handled < Math.min(limit, messageCount)) {
  const msg = await channel.get(dead, { noAck: false });
  if (!msg) break;
  handled += 1;
  const headers = msg.properties.headers ?? {};
  let event = {};
  try {
    event = JSON.parse(msg.content.toString('utf8'));
  } catch {
    // unreadable: shown as such
  }
  console.log(
    JSON.stringify({
      id: event.id ?? msg.properties.messageId,
      type: event.type ?? msg.properties.type,
      attempts: headers['x-attempts'],
      last_error: headers['x-last-error'],
      dead_lettered_at: headers['x-dead-lettered-at'],
    }),
  );
  if (command === 'replay') {
    const { 'x-attempts': _a, 'x-first-failed-at': _f, 'x-last-error': _e, 'x-dead-lettered-at': _d, ...keep } = headers;
    // The operator's user sends it now, and the broker accepts only its own user_id; the consumer
    // trusts the sender it recorded in x-broker-user at the first delivery (ADR 0054). A message the
    // broker itself parked (its delivery limit, ADR 0062) has no such header: its user_id is the
    // sender the broker vouched for when it was published.
    const { userId, ...properties } = msg.properties;
    const vouched = keep['x-broker-user'] ?? userId;
    channel.sendToQueue(main, msg.content, { ...properties, headers: { ...keep, ...(vouched ? { 'x-broker-user': vouched } : {}) }, persistent: true });
    await channel.waitForConfirms();
    channel.ack(msg);
  } else {
    held.push(msg);
  }
}
// Listing must leave the queue as it was: give back what was only looked at.
for (const msg of held) channel.nack(msg, false, true);
if (command === 'replay') console.log(`replayed ${handled} message(s) to ${main}`);
await channel.close();
await connection.close();
