#!/usr/bin/env node
// Provisions RabbitMQ (ADR 0011, 0054): the whole event topology (one exchange per service, every
// consumer's queues, plumbing and bindings), declared with the admin user, and one broker user per
// service that declares nothing, publishes only on its own exchange and only its own types' routing
// keys, writes only its own retry/DLQ plumbing, reads only its own queue, and cannot write to the
// default exchange. Idempotent: run it again after a release that adds event types or consumers.
// Every queue is a quorum queue (ADR 0062); a broker that still has the classic queues of an earlier
// release gets them emptied into their quorum successors and deleted, except those a process of the
// old release still consumes: the script names them, and running it again once that release has
// stopped finishes the move. No queued event is lost either way.
// Needs `npm run build` first (the topology and permissions come from the shared kit) and
// `rabbitmqctl` with access to the broker (run it on a broker node, or set RABBITMQCTL to a wrapper).
//   NODE_ENV=production MARKET_AMQP_PASSWORDS=identity:…,catalog:… AMQP_ADMIN_URL=amqp://admin:…@rabbit:5672 \
//     node scripts/provision-broker.mjs
// Each service then connects with AMQP_URL=amqp://market_<service>:<password>@rabbit:5672.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { brokerDevPassword, brokerPasswords, SERVICES } from './lib/provision.mjs';

const require = createRequire(import.meta.url);
const execFileAsync = promisify(execFile);
const { brokerAddresses, connectFirstAnswering, declareTopology, migrateLegacyQueues, servicePermissions, ownedTypes, DEFAULT_EXCHANGE } = require('../packages/shared/dist/events/index.js');

const env = process.env;
// only development, said by name, runs on the made-up broker passwords
const production = env.NODE_ENV !== 'development';
const exchange = env.EVENTS_EXCHANGE ?? DEFAULT_EXCHANGE;
const vhost = env.AMQP_VHOST ?? '/';
const userPrefix = env.MARKET_AMQP_USER_PREFIX ?? 'market_';
const rabbitmqctl = env.RABBITMQCTL ?? 'rabbitmqctl';
const adminUrl = env.AMQP_ADMIN_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const only = env.MARKET_AMQP_SERVICES ? env.MARKET_AMQP_SERVICES.split(',') : SERVICES;
const passwords = brokerPasswords(env);

function passwordOf(service) {
  if (passwords[service]) return passwords[service];
  if (production) throw new Error(`MARKET_AMQP_PASSWORDS has no password for ${service}`);
  return brokerDevPassword(service);
}

async function ctl(...args) {
  return (await execFileAsync(rabbitmqctl, args, { encoding: 'utf8' })).stdout;
}

/** A rabbitmqctl call that reads a secret from stdin. */
function ctlWithInput(input, ...args) {
  return new Promise((resolve, reject) => {
    const child = execFile(rabbitmqctl, args, (err) => (err ? reject(err) : resolve()));
    child.stdin.end(input);
  });
}

async function declareWholeTopology() {
  // AMQP_ADMIN_URL may list a cluster's nodes (ADR 0062): the first that answers serves.
  const addresses = brokerAddresses(adminUrl).map((address) => {
    const url = new URL(address);
    if (vhost !== '/') url.pathname = `/${encodeURIComponent(vhost)}`;
    return url.toString();
  });
  const connection = await connectFirstAnswering(addresses.join(','));
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    await declareTopology(channel, exchange);
    await channel.close();
    const report = await migrateLegacyQueues(connection, exchange);
    for (const [queue, moved] of Object.entries(report.moved)) console.log(`${queue}: moved ${moved} message(s) into its quorum queue`);
    for (const queue of report.deleted) console.log(`${queue}: classic queue emptied and deleted`);
    for (const queue of report.inUse) {
      console.warn(`${queue}: classic queue still consumed (or refilled) by a process of the previous release; run this script again once that release has stopped`);
    }
  } finally {
    await connection.close();
  }
}

await declareWholeTopology();

const existing = new Set((await ctl('list_users', '--quiet', '--no-table-headers')).split('\n').map((line) => line.split('\t')[0]));
for (const service of only) if (!SERVICES.includes(service)) throw new Error(`unknown service ${service}`);
// Each rabbitmqctl call boots an Erlang VM (a second or more of CPU): the services' users are
// provisioned side by side, each one's calls in order.
await Promise.all(
  only.map(async (service) => {
    const user = `${userPrefix}${service}`;
    // rabbitmqctl reads the password from stdin when it is not an argument, keeping it out of `ps`.
    await ctlWithInput(passwordOf(service), existing.has(user) ? 'change_password' : 'add_user', user);
    const granted = servicePermissions(exchange, service);
    await ctl('set_permissions', '-p', vhost, user, granted.configure, granted.write, granted.read);
    // A topic permission left from before ADR 0054 names the old common exchange: clear them all first.
    await ctl('clear_topic_permissions', '-p', vhost, user);
    await ctl('set_topic_permissions', '-p', vhost, user, granted.topic.exchange, granted.topic.write, granted.topic.read);
    console.log(`${user}: may publish ${ownedTypes(service).join(', ') || 'nothing'} on ${granted.topic.exchange}`);
  }),
);
console.log(`provisioned broker: topology of ${exchange} and ${only.length} service user(s)`);
