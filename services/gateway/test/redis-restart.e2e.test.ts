import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@redis/client';
import { api, eventually, freePort, newAdmin, startStack, unhandledRejections, type Stack } from '@market/testkit';

/**
 * Redis restarted under a running stack (ADR 0064): the stack's Redis is a private `redis-server`
 * this file starts on a free port, so restarting it touches nobody else's tests. Its users come
 * from an ACL file, as production's do, so they come back with the restart; its data does not
 * (`--save ''`, no append-only file), as after a failover to a replica that had not caught up.
 * While it is away every request answers with its result or a 503 problem, never a 500; once it
 * is back, logins, sessions and the shared rate limits work again without restarting anything, and
 * identity writes the frozen users' blocks again.
 * Meanwhile every process stays in rotation and reports Redis away as `degraded` (ADR 0070).
 */

const SMS_PER_MINUTE = 3;

type Client = ReturnType<typeof api>;

const newPhone = () => `137${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** A redis-server of this file's own, restartable on the same port with the same ACL file. */
class PrivateRedis {
  private process: ChildProcess | undefined;
  readonly dir = mkdtempSync(path.join(tmpdir(), 'redis-restart-'));
  readonly aclFile = path.join(this.dir, 'users.acl');

  constructor(readonly port: number) {
    writeFileSync(this.aclFile, '');
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start() {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--aclfile', this.aclFile],
      { stdio: 'ignore' },
    );
    this.process = child;
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server on ${this.port} exited with ${child.exitCode}`);
        return this.ping();
      },
      (answered) => answered,
    );
  }

  async stop() {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  private async ping(): Promise<boolean> {
    const client = createClient({ url: this.url, socket: { reconnectStrategy: false } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return true;
    } catch {
      return false;
    } finally {
      if (client.isOpen) client.destroy();
    }
  }

  /** Writes the users the stack made (ACL SETUSER) to the ACL file, as an operator's file holds them. */
  async saveUsers() {
    const client = createClient({ url: this.url });
    await client.connect();
    try {
      await client.sendCommand(['ACL', 'SAVE']);
    } finally {
      await client.quit();
    }
  }

  cleanUp() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function logIn(client: Client, ip = newIp()): Promise<{ status: number; token?: string; code?: string }> {
  const phone = newPhone();
  const sent = await client.post('/api/auth/sms/send', { phone }, undefined, from(ip));
  if (sent.status !== 200) return { status: sent.status, code: sent.body?.code };
  const res = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code }, undefined, from(ip));
  return { status: res.status, token: res.body?.access_token, code: res.body?.code };
}

async function readyz(base: string, path = '/readyz') {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, boolean> } };
}

describe('when Redis restarts under a running stack', () => {
  let redis: PrivateRedis;
  let stack: Stack;
  let client: Client;
  const rejections = unhandledRejections();

  beforeAll(async () => {
    redis = new PrivateRedis(await freePort());
    await redis.start();
    stack = await startStack({
      services: ['identity', 'catalog', 'admin'],
      env: { REDIS_URL: redis.url, TRUST_PROXY: 'true', RATE_LIMIT_SMS_PER_MINUTE: String(SMS_PER_MINUTE), REVOCATIONS_CHECK_MS: '300' },
    });
    await redis.saveUsers();
    client = api(stack.url);
  });
  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
    redis?.cleanUp();
  });

  it('answers 503 problems, never 500, while Redis is away, and logins, sessions and rate limits work again once it is back', async () => {
    const user = await logIn(client);
    expect(user.status).toBe(200);
    const admin = await newAdmin(stack);
    expect((await client.get('/api/admin/me', admin.token)).status).toBe(200);
    // a frozen user, whose block at the gateway lives in Redis
    const frozen = await logIn(client);
    const frozenId = (await client.get('/api/me', frozen.token)).body.id;
    const freezer = await newAdmin(stack, ['customer_service']);
    expect((await client.post(`/api/admin/users/${frozenId}/freeze`, { reason: 'chargeback abuse' }, freezer.token)).status).toBe(200);
    expect((await client.get('/api/me', frozen.token)).body.code).toBe('USER_FROZEN');
    // a user who logged out, whose access token's revocation lives in Redis until the token expires
    const leaver = await logIn(client);
    expect((await client.post('/api/auth/logout', {}, leaver.token)).status).toBe(204);
    expect((await client.get('/api/me', leaver.token)).body.code).toBe('TOKEN_REVOKED');

    // a burst running through the whole outage: each answer is its result or a 503 problem, promptly
    const outcomes: Array<{ route: string; status: number; code?: string; ms: number }> = [];
    let running = true;
    const worker = async (route: string, call: () => Promise<{ status: number; body: any }>) => {
      while (running) {
        const started = Date.now();
        const res = await call();
        outcomes.push({ route, status: res.status, code: res.body?.code, ms: Date.now() - started });
      }
    };
    const workers = [
      worker('me', () => client.get('/api/me', user.token)),
      worker('sms', () => client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, from(newIp()))),
      worker('listings', () => client.get('/api/listings')),
      worker('admin', () => client.get('/api/admin/me', admin.token)),
    ];
    let away: typeof outcomes = [];
    try {
      await eventually(async () => outcomes.length, (n) => n >= 8);
      await redis.stop();
      const stoppedAt = outcomes.length;
      await eventually(async () => outcomes.filter((o) => o.status === 503).length, (n) => n >= 8);
      // every pod stays in rotation (ADR 0070): Redis is every replica's alike, so it is reported, not a reason to go
      const gatewayView = await eventually(() => readyz(stack.url), (view) => view.body.status === 'degraded');
      expect(gatewayView).toEqual({ status: 200, body: { status: 'degraded', checks: { redis: false } } });
      for (const service of Object.values(stack.services)) {
        const view = await eventually(() => readyz(service!.url), (answer) => answer.body.status === 'degraded');
        expect(view.status).toBe(200);
        expect(view.body.checks).toMatchObject({ accepting: true, database: true, broker: true, redis: false });
      }
      // the operators' view still names what is away, at the gateway and at each service
      const system = await readyz(stack.gatewayMetricsUrl, '/system/readyz');
      expect(system.status).toBe(503);
      expect(system.body).toMatchObject({
        status: 'not_ready',
        checks: { redis: false, identity: true, catalog: true, admin: true, 'identity.redis': false, 'catalog.redis': false, 'catalog.database': true },
      });
      away = outcomes.slice(stoppedAt);
      await redis.start();
    } finally {
      running = false;
      await Promise.all(workers);
    }
    // (a back-office request that reaches the restarted Redis finds its session gone with the data: 401, as after its expiry)
    const expected = (o: (typeof outcomes)[number]) =>
      o.status === 200 || (o.status === 503 && o.code === 'UPSTREAM_UNAVAILABLE') || (o.route === 'admin' && o.status === 401 && o.code === 'UNAUTHENTICATED');
    const unexpected = outcomes.filter((o) => !expected(o));
    expect(unexpected).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(3000);
    // the catalog's public reads never needed Redis
    expect(away.filter((o) => o.route === 'listings').every((o) => o.status === 200)).toBe(true);

    // every process reconnects by itself, with the users from the ACL file, each on its own schedule:
    // the system is ready again when the gateway and every service say so
    // (the services this stack does not run stay down)
    const ready = async () => (await readyz(stack.gatewayMetricsUrl, '/system/readyz')).body.checks;
    await eventually(ready, (checks) => ['redis', 'identity.redis', 'catalog.redis', 'admin.redis'].every((name) => checks[name] === true), 15_000);
    const again = await logIn(client);
    expect(again).toEqual(expect.objectContaining({ status: 200, token: expect.any(String) }));
    expect((await client.get('/api/me', again.token)).status).toBe(200);
    // a user's session outlives the restart: its token needs only the revocation list, which says nothing
    expect((await client.get('/api/me', user.token)).status).toBe(200);
    // the frozen user's block and the logout's revocation went with the data; identity writes both
    // again from its database (ADR 0079, ADR 0081)
    await eventually(async () => (await client.get('/api/me', frozen.token)).body?.code, (code) => code === 'USER_FROZEN', 15_000);
    await eventually(async () => (await client.get('/api/me', leaver.token)).body?.code, (code) => code === 'TOKEN_REVOKED', 15_000);
    // the back office's sessions live in Redis: a new one works (the old one went with the data)
    const nextAdmin = await newAdmin(stack);
    expect((await client.get('/api/admin/me', nextAdmin.token)).status).toBe(200);
    // the shared per-address limit counts in Redis again
    const oneAddress = newIp();
    const sends = [];
    for (let i = 0; i <= SMS_PER_MINUTE; i++) sends.push((await client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, from(oneAddress))).status);
    expect(sends).toEqual([...Array.from({ length: SMS_PER_MINUTE }, () => 200), 429]);
    expect(rejections).toEqual([]);
  });
});
