import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { freePort, mintCaller } from '@market/testkit';
import { dropBusObjects, dropSchemas, internalKeysFor, testEnv, uniqueName } from '@market/shared/testing';
import { queueNames } from '@market/shared/events';

const root = path.resolve(__dirname, '../../..');

/** A built process running: the child, its exit code once it exits, what it printed so far. */
interface Started {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

/** A built process of the system, as `npm start` runs it; resolves once it answers `/healthz`. */
async function startProcess(script: string, env: NodeJS.ProcessEnv, port: number): Promise<Started> {
  const child = spawn(process.execPath, [path.join(root, script)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${script} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, exited, output: () => output };
}

interface Outcome {
  status: number | null;
  /** the problem's code of an error answer, or the connection error's */
  code?: string;
  startedAt: number;
  endedAt: number;
}

/**
 * `total` listing creations, `concurrency` at a time, each on a connection of its own (a client
 * that reuses connections would race the server's closing of idle ones, which no server can prevent).
 */
async function burst(url: string, token: string, total: number, concurrency: number, onHalf: () => void): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      if (i === Math.floor(total / 2)) onHalf();
      const startedAt = Date.now();
      try {
        const res = await fetch(`${url}/api/listings`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, connection: 'close' },
          body: JSON.stringify({ title: `drain ${i}`, game: '王者荣耀', hourly_price: 100, deposit: 0, min_hours: 1, max_hours: 2 }),
        });
        const body = (await res.json()) as { code?: string };
        outcomes.push({ status: res.status, code: body.code, startedAt, endedAt: Date.now() });
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause;
        outcomes.push({ status: null, code: cause?.code ?? String(err), startedAt, endedAt: Date.now() });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}

/**
 * SIGTERM in the middle of a burst of writes, to the gateway and to a service, each a real process
 * of the built system: requests in flight finish, new connections are refused, nothing is lost and
 * nothing answers 5xx except the gateway's 503 for a service that no longer accepts connections.
 */
describe('SIGTERM drains', () => {
  let env: NodeJS.ProcessEnv;
  const schema = uniqueName('t_catalog');
  let catalogPort: number;
  let gatewayPort: number;

  beforeAll(async () => {
    env = await testEnv({ REDIS_KEY_PREFIX: `${uniqueName('drain')}:`, RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'warn' });
    catalogPort = await freePort();
    gatewayPort = await freePort(new Set([catalogPort]));
  });

  afterAll(async () => {
    await dropBusObjects(String(env.AMQP_URL), String(env.EVENTS_EXCHANGE), Object.values(queueNames('catalog', String(env.EVENTS_EXCHANGE))));
    await dropSchemas(String(env.DATABASE_URL), [schema]);
  });

  const catalogEnv = () => ({ ...env, ...internalKeysFor('catalog'), DB_SCHEMA: schema, PORT: String(catalogPort), CATALOG_URL: `http://127.0.0.1:${catalogPort}` });
  const gatewayEnv = () => ({ ...env, ...internalKeysFor('gateway'), PORT: String(gatewayPort), GATEWAY_METRICS_PORT: '0', CATALOG_URL: `http://127.0.0.1:${catalogPort}` });

  async function listingsOf(owner: string): Promise<number> {
    const db = new Client({ connectionString: String(env.DATABASE_URL) });
    await db.connect();
    try {
      const [row] = (await db.query(`SELECT count(*)::int AS n FROM "${schema}".listings WHERE owner_id = $1`, [owner])).rows;
      return row.n;
    } finally {
      await db.end();
    }
  }

  /** The built catalog and gateway, started in that order, and an owner to create listings through them. */
  async function startSystem() {
    const catalog = await startProcess('services/catalog/dist/main.js', catalogEnv(), catalogPort);
    const gateway = await startProcess('services/gateway/dist/main.js', gatewayEnv(), gatewayPort);
    return { catalog, gateway, owner: mintCaller('user') };
  }

  /** A burst of listing creations through the gateway, `target` sent SIGTERM halfway; when it was sent. */
  async function burstUntilTerminated(target: ChildProcess, token: string): Promise<{ outcomes: Outcome[]; termAt: number }> {
    let termAt = 0;
    const outcomes = await burst(`http://127.0.0.1:${gatewayPort}`, token, 240, 24, () => {
      termAt = Date.now();
      target.kill('SIGTERM');
    });
    return { outcomes, termAt };
  }

  /** After a test: the process it signalled killed if it is still there, the other stopped as usual. */
  async function endBoth(signalled: Started, other: Started) {
    signalled.child.kill('SIGKILL');
    other.child.kill('SIGTERM');
    await other.exited;
  }

  it('the gateway finishes what it took, refuses new connections, and exits cleanly', async () => {
    const { catalog, gateway, owner } = await startSystem();
    try {
      const { outcomes, termAt } = await burstUntilTerminated(gateway.child, owner.token);
      expect(await gateway.exited).toBe(0);

      const answered = outcomes.filter((o) => o.status !== null);
      expect(answered.filter((o) => o.status! >= 500)).toEqual([]);
      expect(answered.every((o) => o.status === 201)).toBe(true);
      // requests in flight when the signal came were answered
      expect(answered.filter((o) => o.startedAt < termAt && o.endedAt > termAt).length).toBeGreaterThan(0);
      // what came after was refused at the door: the listener closed (refused), or the connection
      // still waited in its listen backlog when it closed (reset by the kernel, never read)
      const refused = outcomes.filter((o) => o.status === null);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.filter((o) => o.code !== 'ECONNREFUSED' && o.code !== 'ECONNRESET')).toEqual([]);
      // nothing lost, nothing done without an answer
      expect(await listingsOf(owner.id)).toBe(answered.length);
    } finally {
      await endBoth(gateway, catalog);
    }
  }, 90_000);

  it('a service finishes what it took, the gateway answers 503 for what it can no longer send, and nothing is lost', async () => {
    const { catalog, gateway, owner } = await startSystem();
    try {
      const { outcomes, termAt } = await burstUntilTerminated(catalog.child, owner.token);
      expect(await catalog.exited).toBe(0);

      expect(outcomes.every((o) => o.status !== null)).toBe(true);
      const created = outcomes.filter((o) => o.status === 201);
      const failed = outcomes.filter((o) => o.status !== 201);
      // requests the service had taken when the signal came were answered
      expect(created.filter((o) => o.startedAt < termAt && o.endedAt > termAt).length).toBeGreaterThan(0);
      expect(failed.length).toBeGreaterThan(0);
      // Every other answer is the gateway's upstream-unavailable problem for a connection the service
      // never took: refused (503) once its listener closed, or reset by the kernel (502) while it
      // waited in the listen backlog as the listener closed. Never a 500, never a request cut mid-way:
      expect(failed.filter((o) => !(o.code === 'UPSTREAM_UNAVAILABLE' && (o.status === 503 || o.status === 502)))).toEqual([]);
      expect(failed.filter((o) => o.status === 503).length).toBeGreaterThan(0);
      // nothing lost and nothing done without an answer: exactly the answered creations exist
      expect(await listingsOf(owner.id)).toBe(created.length);
    } finally {
      await endBoth(catalog, gateway);
    }
  }, 90_000);
});
