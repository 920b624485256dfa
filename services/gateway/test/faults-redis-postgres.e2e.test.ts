import { randomInt, randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { createClient } from '@redis/client';
import { assertionFor } from '@market/shared/testing';
import { api, newAdmin, startStack, unhandledRejections, type Stack } from '@market/testkit';

/**
 * Faults of the backing services while requests run through a real stack: a Redis that stops
 * answering (CLIENT PAUSE, as a stalled or overloaded Redis looks to its clients) and Postgres
 * backends terminated under load (a server restart or failover as the pool sees it). Every request
 * must answer within a few seconds — its normal answer or a 503 problem, never a 500 — no process
 * may fail, and everything must work again once the dependency is back.
 */

const PAUSE_MS = 6000;
/** low enough to reach during the pause; every other request here comes from its own address */
const SMS_PER_MINUTE = 3;

type Client = ReturnType<typeof api>;
interface Outcome {
  status: number;
  code?: string;
  ms: number;
}

const newPhone = () => `137${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

async function timed(call: () => Promise<{ status: number; body: any }>): Promise<Outcome> {
  const started = Date.now();
  const res = await call();
  return { status: res.status, code: typeof res.body === 'object' ? res.body?.code : undefined, ms: Date.now() - started };
}

/** How many answers of each status and code, e.g. `{ "200": 12, "503 UPSTREAM_UNAVAILABLE": 3 }`: readable in a failure. */
function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.status >= 400 ? `${o.status} ${o.code}` : String(o.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function logIn(client: Client): Promise<{ token: string; userId: string }> {
  const phone = newPhone();
  const ip = newIp();
  const sent = await client.post('/api/auth/sms/send', { phone }, undefined, from(ip));
  expect(sent.status).toBe(200);
  const res = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code }, undefined, from(ip));
  expect(res.status).toBe(200);
  return { token: res.body.access_token, userId: res.body.user.id };
}

/** Stalls the shared Redis for `ms`: every client's commands wait, connections stay open. */
async function pauseRedis(url: string, ms: number) {
  const admin = createClient({ url });
  await admin.connect();
  try {
    await admin.sendCommand(['CLIENT', 'PAUSE', String(ms), 'ALL']);
  } finally {
    // QUIT would wait out the pause like any other command
    admin.destroy();
  }
}

async function unpauseRedis(url: string) {
  const admin = createClient({ url });
  await admin.connect();
  try {
    await admin.sendCommand(['CLIENT', 'UNPAUSE']);
  } finally {
    await admin.quit();
  }
}

/**
 * Ends every Postgres session of this stack's services and no other (other test files share the
 * server): pool connections carry their schema as application_name, the outbox listener names
 * its schema in its LISTEN.
 */
async function terminateBackends(databaseUrl: string, schemas: string[]): Promise<number> {
  const admin = new PgClient({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND datname = current_database()
          AND (application_name = ANY($1::text[]) OR query LIKE ANY($2::text[]))`,
      [schemas, schemas.map((s) => `LISTEN %${s}%`)],
    );
    return rows.filter((r) => r.ended).length;
  } finally {
    await admin.end();
  }
}

describe('when Redis stalls or Postgres drops connections', () => {
  let stack: Stack;
  let client: Client;
  const rejections = unhandledRejections();

  beforeAll(async () => {
    stack = await startStack({ services: ['identity', 'catalog', 'admin'], env: { TRUST_PROXY: 'true', RATE_LIMIT_SMS_PER_MINUTE: String(SMS_PER_MINUTE) } });
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());
  afterEach(() => {
    expect(rejections).toEqual([]);
  });

  it('answers within about 2 s while Redis is paused: 503 where Redis is needed, normal answers where it is not, and recovers', async () => {
    const { token } = await logIn(client);
    const redisUrl = String(stack.env.REDIS_URL);
    const oneAddress = from(newIp());
    let during: Record<'sms' | 'smsFromOneAddress' | 'me' | 'listings', Outcome[]>;
    await pauseRedis(redisUrl, PAUSE_MS);
    try {
      const many = (n: number, call: () => Promise<{ status: number; body: any }>) =>
        Promise.all(Array.from({ length: n }, () => timed(call)));
      const [sms, smsFromOneAddress, me, listings] = await Promise.all([
        many(5, () => client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, from(newIp()))),
        many(SMS_PER_MINUTE + 2, () => client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, oneAddress)),
        many(5, () => client.get('/api/me', token)),
        many(5, () => client.get('/api/listings')),
      ]);
      during = { sms, smsFromOneAddress, me, listings };
    } finally {
      await unpauseRedis(redisUrl);
    }

    const slowest = (outcomes: Outcome[]) => Math.max(...outcomes.map((o) => o.ms));
    expect({
      sms: tally(during.sms),
      smsFromOneAddress: tally(during.smsFromOneAddress),
      me: tally(during.me),
      listings: tally(during.listings),
    }).toEqual({
      sms: { '503 UPSTREAM_UNAVAILABLE': 5 },
      // the gateway's per-address SMS limit still holds, counted in its own memory
      smsFromOneAddress: { '503 UPSTREAM_UNAVAILABLE': SMS_PER_MINUTE, '429 RATE_LIMITED': 2 },
      me: { '503 UPSTREAM_UNAVAILABLE': 5 },
      listings: { '200': 5 },
    });
    expect(slowest([...during.sms, ...during.smsFromOneAddress])).toBeLessThan(2500);
    expect(slowest(during.me)).toBeLessThan(2500);
    expect(slowest(during.listings)).toBeLessThan(1500);

    expect((await client.get('/api/me', token)).status).toBe(200);
    expect((await client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, from(newIp()))).status).toBe(200);
  });

  it('answers every request with its result or a 503 problem while Postgres backends are terminated, and recovers', async () => {
    const { token } = await logIn(client);
    const schemas = Object.values(stack.services).map((s) => s!.ctx.schema);
    const outcomes: Outcome[] = [];
    let running = true;
    const worker = async (call: () => Promise<{ status: number; body: any }>) => {
      while (running) outcomes.push(await timed(call));
    };
    const workers = [
      worker(() => client.get('/api/me', token)),
      worker(() => client.get('/api/me', token)),
      worker(() => client.get('/api/listings')),
      worker(() => client.get('/api/listings')),
      worker(async () => {
        const phone = newPhone();
        const ip = newIp();
        const sent = await client.post('/api/auth/sms/send', { phone }, undefined, from(ip));
        if (sent.status !== 200) return sent;
        return client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code }, undefined, from(ip));
      }),
    ];
    let terminated = 0;
    try {
      for (let round = 0; round < 6; round++) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        terminated += await terminateBackends(String(stack.env.DATABASE_URL), schemas);
      }
    } finally {
      running = false;
      await Promise.all(workers);
    }

    expect(terminated).toBeGreaterThan(0);
    const unexpected = outcomes.filter((o) => !(o.status === 200 || (o.status === 503 && o.code === 'UPSTREAM_UNAVAILABLE')));
    expect({ unexpected: tally(unexpected), all: tally(outcomes) }).toEqual({ unexpected: {}, all: expect.anything() });
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(5000);

    expect((await client.get('/api/me', token)).status).toBe(200);
    expect((await client.get('/api/listings')).status).toBe(200);
    expect((await logIn(client)).token).toEqual(expect.any(String));
  });

  it('refuses a freeze quickly while Redis is paused and leaves the user neither frozen nor blocked once it resumes', async () => {
    const { token, userId } = await logIn(client);
    const admin = (await newAdmin(stack, ['customer_service'])).token;
    const redisUrl = String(stack.env.REDIS_URL);
    // Straight to identity, as the gateway would forward it: the gateway itself answers 503 while
    // it cannot check the admin token's revocation, so the freeze would never be tried.
    const identity = api(stack.services.identity!.url);
    const freeze = `/api/admin/users/${userId}/freeze`;
    const asAdmin = {
      'x-internal-assertion': await assertionFor(
        { kind: 'admin', sub: randomUUID(), sid: randomUUID(), ip: null, perms: ['users.freeze'] },
        { service: 'identity', method: 'POST', path: freeze },
      ),
    };
    let refused: Outcome;
    await pauseRedis(redisUrl, 3000);
    try {
      refused = await timed(() => identity.post(freeze, { reason: 'chargeback abuse' }, undefined, asAdmin));
    } finally {
      await unpauseRedis(redisUrl);
    }

    expect(refused).toEqual({ status: 503, code: 'UPSTREAM_UNAVAILABLE', ms: expect.any(Number) });
    expect(refused.ms).toBeLessThan(2500);
    const me = await client.get('/api/me', token);
    expect({ status: me.status, frozen: me.body.frozen }).toEqual({ status: 200, frozen: false });
    expect((await client.post(`/api/admin/users/${userId}/freeze`, { reason: 'chargeback abuse' }, admin)).status).toBe(200);
    expect((await client.get('/api/me', token)).body.code).toBe('USER_FROZEN');
  });
});
