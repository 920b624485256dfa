#!/usr/bin/env node
// Provisions RabbitMQ for production (ADR 0011): one broker user per service whose topic
// permissions let it publish only the routing keys of the event types it owns, and the whole
// event topology. Idempotent: run it again after a release that adds event types or consumers.
// Needs `npm run build` first (the topology comes from the shared contracts) and `rabbitmqctl`
// with access to the broker (run it on a broker node, or set RABBITMQCTL to a wrapper).
//   NODE_ENV=production MARKET_AMQP_PASSWORDS=identity:…,catalog:… AMQP_ADMIN_URL=amqp://admin:…@rabbit:5672 \
//     node scripts/provision-broker.mjs
// Each service then connects with AMQP_URL=amqp://market_<service>:<password>@rabbit:5672.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect } from 'amqplib';
import { SERVICES } from './lib/provision.mjs';

const require = createRequire(import.meta.url);
const { eventProducers } = require('../packages/contracts/dist/index.js');
const { declareTopology, queueNames, topologyQueues, unroutedNames, DEFAULT_EXCHANGE } = require('../packages/shared/dist/events/index.js');

const env = process.env;
// only development, said by name, runs on the made-up broker passwords
const production = env.NODE_ENV !== 'development';
const exchange = env.EVENTS_EXCHANGE ?? DEFAULT_EXCHANGE;
const vhost = env.AMQP_VHOST ?? '/';
const userPrefix = env.MARKET_AMQP_USER_PREFIX ?? 'market_';
const rabbitmqctl = env.RABBITMQCTL ?? 'rabbitmqctl';
const adminUrl = env.AMQP_ADMIN_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const only = env.MARKET_AMQP_SERVICES ? env.MARKET_AMQP_SERVICES.split(',') : SERVICES;
const passwords = Object.fromEntries(
  (env.MARKET_AMQP_PASSWORDS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split(':')),
);

function passwordOf(service) {
  if (passwords[service]) return passwords[service];
  if (production) throw new Error(`MARKET_AMQP_PASSWORDS has no password for ${service}`);
  return `dev-${service}-amqp-password`;
}

const escape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exactly = (names) => `^(${names.map(escape).join('|')})$`;

function ctl(...args) {
  return execFileSync(rabbitmqctl, [...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** The routing keys a service may publish: the types `eventProducers` gives it, nothing else. */
function ownedTypes(service) {
  return Object.entries(eventProducers)
    .filter(([, producers]) => producers.includes(service))
    .map(([type]) => type);
}

async function declareWholeTopology() {
  const connection = await connect(adminUrl);
  try {
    let channel = await connection.createChannel();
    channel.on('error', () => undefined);
    try {
      await declareTopology(channel, exchange);
    } catch (err) {
      // 406: the exchange predates the alternate exchange. Re-creating it drops only its
      // bindings (queues keep their messages); the topology re-binds them at once, and a relay
      // publishing in between gets its mandatory messages returned and retries.
      if (err.code !== 406) throw err;
      channel = await connection.createChannel();
      channel.on('error', () => undefined);
      await channel.deleteExchange(exchange);
      await declareTopology(channel, exchange);
      console.log(`re-created exchange ${exchange} with its alternate exchange`);
    }
    await channel.close();
  } finally {
    await connection.close();
  }
}

await declareWholeTopology();

const existing = new Set(ctl('list_users', '--quiet', '--no-table-headers').split('\n').map((line) => line.split('\t')[0]));
const unrouted = unroutedNames(exchange);
const allQueues = topologyQueues(exchange);
for (const service of only) {
  if (!SERVICES.includes(service)) throw new Error(`unknown service ${service}`);
  const user = `${userPrefix}${service}`;
  // rabbitmqctl reads the password from stdin when it is not an argument, keeping it out of `ps`.
  const password = passwordOf(service);
  if (existing.has(user)) {
    execFileSync(rabbitmqctl, ['change_password', user], { input: password, stdio: ['pipe', 'ignore', 'pipe'] });
  } else {
    execFileSync(rabbitmqctl, ['add_user', user], { input: password, stdio: ['pipe', 'ignore', 'pipe'] });
  }
  const own = Object.values(queueNames(service, exchange));
  // Every service declares the whole topology (configure, and write to bind), publishes to the
  // events exchange and, for retries and the DLQ, to the default exchange; it reads only its own queues.
  ctl(
    'set_permissions', '-p', vhost, user,
    exactly([exchange, unrouted.exchange, ...allQueues, ...own]),
    exactly([exchange, unrouted.exchange, 'amq.default', ...allQueues, ...own]),
    exactly([exchange, unrouted.exchange, ...own]),
  );
  const types = ownedTypes(service);
  ctl('set_topic_permissions', '-p', vhost, user, exchange, types.length ? exactly(types) : '^$', '.*');
  console.log(`${user}: may publish ${types.join(', ') || 'nothing'} on ${exchange}`);
}
console.log(`provisioned broker: topology of ${exchange} and ${only.length} service user(s)`);
