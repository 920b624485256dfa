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
  return async (method: string, path: string, body?: unknown): Promise<void> => {
    const answer = await fetch(new URL(`/api/${path}`, base), {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    if (!answer.ok && !(method === 'DELETE' && answer.status === 404)) {
      throw new Error(`RabbitMQ management API ${method} /api/${path} answered ${answer.status}: ${await answer.text()}`);
    }
  };
}

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

/**
 * Creates the vhost and its users in one definitions import, then declares `exchange`'s topology as
 * the vhost's admin. `amqpUrl` says where the broker is.
 */
export async function provisionTestBroker(amqpUrl: string, exchange: string): Promise<TestBroker> {
  const api = managementApi(amqpUrl);
  const id = randomBytes(4).toString('hex');
  const vhost = `t_${id}`;
  const userOf = (role: string) => ({ name: `t_${id}_${role}`, password: randomBytes(12).toString('hex') });
  // `operator`, not `admin`: admin is a service, with a user of its own
  const admin = userOf('operator');
  const users = new Map(SERVICE_NAMES.map((service) => [service as string, userOf(service)]));
  const definitions = {
    vhosts: [{ name: vhost }],
    users: [admin, ...users.values()].map((u) => ({
      name: u.name,
      password_hash: passwordHash(u.password),
      hashing_algorithm: 'rabbit_password_hashing_sha256',
      tags: [],
    })),
    permissions: [
      { user: admin.name, vhost, configure: '.*', write: '.*', read: '.*' },
      ...brokerPermissions(exchange).map((p) => ({ user: users.get(p.service)!.name, vhost, configure: p.configure, write: p.write, read: p.read })),
    ],
    topic_permissions: brokerPermissions(exchange).map((p) => ({ user: users.get(p.service)!.name, vhost, ...p.topic })),
  };
  const names = [admin, ...users.values()].map((u) => u.name);
  const close = async () => {
    await api('DELETE', `vhosts/${encodeURIComponent(vhost)}`);
    await api('POST', 'users/bulk-delete', { users: names });
  };
  try {
    await api('POST', 'definitions', definitions);
    const adminUrl = urlAs(amqpUrl, vhost, admin.name, admin.password);
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
      adminUrl,
      urlOf: (service) => {
        const user = users.get(service);
        if (!user) throw new Error(`no broker user for ${service}`);
        return urlAs(amqpUrl, vhost, user.name, user.password);
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The environment of a stack on `broker`: AMQP_URL is the vhost's admin (what a test inspects
 * queues with), and `<SERVICE>_AMQP_URL` each service's own user, which `serviceAmqpUrl` picks.
 */
export function testBrokerEnv(broker: TestBroker): Record<string, string> {
  return {
    AMQP_URL: broker.adminUrl,
    ...Object.fromEntries(SERVICE_NAMES.map((service) => [`${service.toUpperCase()}_AMQP_URL`, broker.urlOf(service)])),
  };
}

/** The broker URL `service` connects with in a test environment: its own user where the stack made one. */
export function serviceAmqpUrl(env: NodeJS.ProcessEnv, service: string): string {
  return String(env[`${service.toUpperCase()}_AMQP_URL`] ?? env.AMQP_URL);
}
