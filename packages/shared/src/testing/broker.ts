import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'amqplib';
import { SERVICE_NAMES } from '@market/contracts';
import { brokerPermissions } from '../events/broker-permissions';
import { declareTopology } from '../events/topology';

/**
 * A virtual host of one test's own on the shared broker, with an admin user and one user per
 * service holding exactly the permissions production gives it (ADR 0054), the exchange's whole
 * topology declared: so tests prove the broker's refusals for real. Nothing of the broker's own
 * users or default vhost is touched; `close()` deletes the vhost and every user made here.
 */
export interface TestBroker {
  vhost: string;
  /** the events exchange the vhost's topology is declared for */
  exchange: string;
  /** the vhost's admin (declares, deletes, reads every queue): what a test's own inspection connects as */
  adminUrl: string;
  /** a service's user on the vhost */
  urlOf(service: string): string;
  close(): Promise<void>;
}

/**
 * The broker's management HTTP API (the `rabbitmq_management` plugin, which `npm test`'s
 * prerequisites enable): one request makes a test's vhost and users and one removes them, where a
 * `rabbitmqctl` start cost the machine half a CPU second and seconds of waiting each time.
 * `RABBITMQ_MANAGEMENT_URL` names it; by default the AMQP host on port 15672 with the AMQP URL's
 * credentials.
 */
function managementApi(amqpUrl: string) {
  const amqp = new URL(amqpUrl);
  const base = new URL(process.env.RABBITMQ_MANAGEMENT_URL ?? `http://${amqp.hostname}:15672`);
  const user = decodeURIComponent(base.username || amqp.username || 'guest');
  const password = decodeURIComponent(base.password || amqp.password || 'guest');
  base.username = '';
  base.password = '';
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return async <T = unknown>(method: string, path: string, body?: unknown): Promise<T | null> => {
    const answer = await fetch(new URL(`/api/${path}`, base), {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    if (answer.status === 404 && method !== 'POST') return null;
    if (!answer.ok) throw new Error(`RabbitMQ management API ${method} /api/${path} answered ${answer.status}: ${await answer.text()}`);
    const text = await answer.text();
    return text ? (JSON.parse(text) as T) : null;
  };
}

type ManagementApi = ReturnType<typeof managementApi>;

/** RabbitMQ's stored form of a password (rabbit_password_hashing_sha256): base64(salt ‖ sha256(salt ‖ password)). */
function passwordHash(password: string): string {
  const salt = randomBytes(4);
  return Buffer.concat([salt, createHash('sha256').update(Buffer.concat([salt, Buffer.from(password)])).digest()]).toString('base64');
}

function urlAs(base: string, vhost: string, user: string, password: string): string {
  const url = new URL(base);
  url.username = user;
  url.password = password;
  url.pathname = `/${encodeURIComponent(vhost)}`;
  return url.toString();
}

/** A vhost's users: `operator` (its admin) and one per service, named `<prefix>_<role>`. */
function usersOf(prefix: string, passwordOf: (role: string) => string) {
  const userOf = (role: string) => ({ name: `${prefix}_${role}`, password: passwordOf(role) });
  // `operator`, not `admin`: admin is a service, with a user of its own
  return { admin: userOf('operator'), services: new Map(SERVICE_NAMES.map((service) => [service as string, userOf(service)])) };
}

type VhostUsers = ReturnType<typeof usersOf>;

/** Creates `vhost` and its users with their production permissions on `exchange`, in one definitions import. */
async function createVhost(api: ManagementApi, vhost: string, exchange: string, users: VhostUsers) {
  await api('POST', 'definitions', {
    vhosts: [{ name: vhost }],
    users: [users.admin, ...users.services.values()].map((u) => ({
      name: u.name,
      password_hash: passwordHash(u.password),
      hashing_algorithm: 'rabbit_password_hashing_sha256',
      tags: [],
    })),
    permissions: [
      { user: users.admin.name, vhost, configure: '.*', write: '.*', read: '.*' },
      ...brokerPermissions(exchange).map((p) => ({ user: users.services.get(p.service)!.name, vhost, configure: p.configure, write: p.write, read: p.read })),
    ],
    topic_permissions: brokerPermissions(exchange).map((p) => ({ user: users.services.get(p.service)!.name, vhost, ...p.topic })),
  });
}

async function deleteVhost(api: ManagementApi, vhost: string, userNames: string[]) {
  await api('DELETE', `vhosts/${encodeURIComponent(vhost)}`);
  await api('POST', 'users/bulk-delete', { users: userNames });
}

/** Declares `exchange`'s topology as the vhost's admin (idempotent) and answers the broker a stack uses. */
async function readyBroker(amqpUrl: string, vhost: string, exchange: string, users: VhostUsers, close: () => Promise<void>): Promise<TestBroker> {
  const adminUrl = urlAs(amqpUrl, vhost, users.admin.name, users.admin.password);
  const connection = await connect(adminUrl);
  try {
    const channel = await connection.createChannel();
    await declareTopology(channel, exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
  return {
    vhost,
    exchange,
    adminUrl,
    urlOf: (service) => {
      const user = users.services.get(service);
      if (!user) throw new Error(`no broker user for ${service}`);
      return urlAs(amqpUrl, vhost, user.name, user.password);
    },
    close,
  };
}

/**
 * A vhost of its own for one test: creates the vhost and its users, declares `exchange`'s topology,
 * and `close()` deletes them. For the tests of the broker's own objects (provisioning, migrations);
 * a stack takes a vhost with `leaseTestBroker`.
 */
export async function provisionTestBroker(amqpUrl: string, exchange: string): Promise<TestBroker> {
  const api = managementApi(amqpUrl);
  const id = randomBytes(4).toString('hex');
  const vhost = `t_${id}`;
  const users = usersOf(vhost, () => randomBytes(12).toString('hex'));
  const close = () => deleteVhost(api, vhost, [users.admin.name, ...[...users.services.values()].map((u) => u.name)]);
  try {
    await createVhost(api, vhost, exchange, users);
    return await readyBroker(amqpUrl, vhost, exchange, users, close);
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Test vhosts are reused within one test run (ADR 0069): each holds about 25 quorum queues, each a
 * Raft group the broker starts with the vhost and stops with it, and making and deleting a vhost per
 * stack, six stacks at once, stalled and once wedged RabbitMQ 3.10. A vhost belongs to one jest
 * worker of one run (`TEST_RUN`, set by scripts/jest-bounded.mjs to `<host>-<pid>`; JEST_WORKER_ID),
 * in a slot no other stack of that worker holds; a leased vhost is emptied before use, and its
 * exchange is always `test.events`, so its queues are the same queues again. Vhosts of runs whose
 * process is gone are deleted when a run makes its own.
 */
const POOLED_EXCHANGE = 'test.events';
const POOL_PREFIX = 'tp_';
const slotsInUse = new Set<number>();

function poolRun(): { host: string; pid: number } | null {
  const match = /^([A-Za-z0-9.-]+)-(\d+)$/.exec(process.env.TEST_RUN ?? '');
  return match ? { host: match[1]!, pid: Number(match[2]) } : null;
}

/** Whether process `pid` is running (on this machine): what a test resource left by an ended run is told apart by. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the pooled vhosts (and their users) of this host's runs that have ended. */
async function sweepEndedRuns(api: ManagementApi, host: string) {
  const ours = `${POOL_PREFIX}${host}-`;
  const ended = (name: string) => {
    const pid = Number(name.startsWith(ours) ? name.slice(ours.length).split('_')[0] : NaN);
    return Number.isInteger(pid) && !isAlive(pid);
  };
  const vhosts = (await api<Array<{ name: string }>>('GET', 'vhosts?columns=name')) ?? [];
  const users = (await api<Array<{ name: string }>>('GET', 'users?columns=name')) ?? [];
  for (const { name } of vhosts.filter((v) => ended(v.name))) await api('DELETE', `vhosts/${encodeURIComponent(name)}`);
  for (const name of users.map((u) => u.name).filter(ended)) await api('DELETE', `users/${encodeURIComponent(name)}`);
}

/** Empties every queue of a vhost nobody is connected to: retry queues first, whose messages would otherwise move on into their main queue. */
async function emptyQueues(api: ManagementApi, vhost: string) {
  const queues = (await api<Array<{ name: string }>>('GET', `queues/${encodeURIComponent(vhost)}?columns=name`)) ?? [];
  const retryFirst = [...queues].sort((a, b) => Number(b.name.endsWith('.retry')) - Number(a.name.endsWith('.retry')));
  for (const { name } of retryFirst) await api('DELETE', `queues/${encodeURIComponent(vhost)}/${encodeURIComponent(name)}/contents`);
}

/**
 * The broker of one test stack: a pooled vhost (above) when the run is known, or else one of its
 * own for `exchange`. The broker's `exchange` is the one the stack must use (`testBrokerEnv` sets
 * EVENTS_EXCHANGE). `close()` hands a pooled vhost back for the worker's next stack.
 */
export async function leaseTestBroker(amqpUrl: string, exchange: string): Promise<TestBroker> {
  const run = poolRun();
  if (!run) return provisionTestBroker(amqpUrl, exchange);
  const api = managementApi(amqpUrl);
  for (let slot = 0; ; slot++) {
    if (slotsInUse.has(slot)) continue;
    // Taken before the first await, so two stacks a file starts at once never lease the same slot.
    slotsInUse.add(slot);
    const release = async () => {
      slotsInUse.delete(slot);
    };
    const vhost = `${POOL_PREFIX}${run.host}-${run.pid}_w${process.env.JEST_WORKER_ID ?? '1'}_s${slot}`;
    // The passwords follow from the run, so a later file of the same worker finds the users as they are.
    const users = usersOf(vhost, (role) => createHash('sha256').update(`${vhost}:${role}`).digest('hex').slice(0, 24));
    try {
      const found = await api('GET', `vhosts/${encodeURIComponent(vhost)}`);
      // A stack an earlier file left running still holds its vhost: the slot stays taken, try the next.
      if (found !== null && ((await api<unknown[]>('GET', `vhosts/${encodeURIComponent(vhost)}/connections`)) ?? []).length > 0) continue;
      if (found === null) {
        // Cleaning up after others is best effort: runs starting at once sweep the same vhosts and
        // users, and the broker may answer 500 to one of two deletes of the same user.
        await sweepEndedRuns(api, run.host).catch(() => undefined);
        await createVhost(api, vhost, POOLED_EXCHANGE, users);
      } else {
        await emptyQueues(api, vhost);
      }
      return await readyBroker(amqpUrl, vhost, POOLED_EXCHANGE, users, release);
    } catch (err) {
      await release();
      throw err;
    }
  }
}

/**
 * The environment of a stack on `broker`: its exchange, AMQP_URL the vhost's admin (what a test inspects
 * queues with), and `<SERVICE>_AMQP_URL` each service's own user, which `serviceAmqpUrl` picks.
 */
export function testBrokerEnv(broker: TestBroker): Record<string, string> {
  return {
    EVENTS_EXCHANGE: broker.exchange,
    AMQP_URL: broker.adminUrl,
    ...Object.fromEntries(SERVICE_NAMES.map((service) => [`${service.toUpperCase()}_AMQP_URL`, broker.urlOf(service)])),
  };
}

/** The broker URL `service` connects with in a test environment: its own user where the stack made one. */
export function serviceAmqpUrl(env: NodeJS.ProcessEnv, service: string): string {
  return String(env[`${service.toUpperCase()}_AMQP_URL`] ?? env.AMQP_URL);
}
