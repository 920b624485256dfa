import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

const rabbitmqctl = () => process.env.RABBITMQCTL ?? 'rabbitmqctl';

function ctl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(rabbitmqctl(), args, { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`rabbitmqctl ${args[0]} failed: ${stderr || err.message}`)) : resolve(stdout),
    );
  });
}

/**
 * Imports definitions from a file the broker's OS user can read (rabbitmqctl runs as that user, and
 * 3.10 reads no stdin): it holds only salted hashes, and is gone once imported.
 */
async function importDefinitions(definitions: object) {
  const dir = await mkdtemp(path.join(tmpdir(), 'broker-'));
  try {
    await chmod(dir, 0o755);
    const file = path.join(dir, 'definitions.json');
    await writeFile(file, JSON.stringify(definitions), { mode: 0o644 });
    await ctl(['import_definitions', file]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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
 * Creates the vhost and its users in one `rabbitmqctl import_definitions` (one CLI start instead of
 * thirty), then declares `exchange`'s topology as the vhost's admin. `amqpUrl` says where the broker
 * is; `rabbitmqctl` (or RABBITMQCTL) must reach that broker's node.
 */
export async function provisionTestBroker(amqpUrl: string, exchange: string): Promise<TestBroker> {
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
    // One CLI start for the vhost and its eight users (each start costs the machine half a CPU
    // second); the names are ours, `t_<hex>_<role>`, safe inside an Erlang binary. Should the
    // broker's internals differ, the CLI's own commands do the same, one by one.
    const erlang = `ok = rabbit_vhost:delete(<<"${vhost}">>, <<"testkit">>), [rabbit_auth_backend_internal:delete_user(U, <<"testkit">>) || U <- [${names.map((n) => `<<"${n}">>`).join(', ')}]], ok.`;
    await ctl(['eval', erlang]).catch(async () => {
      await ctl(['delete_vhost', vhost]).catch(() => undefined);
      await Promise.all(names.map((name) => ctl(['delete_user', name]).catch(() => undefined)));
    });
  };
  try {
    await importDefinitions(definitions);
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
