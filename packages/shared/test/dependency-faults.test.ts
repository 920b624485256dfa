import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@redis/client';
import type { DataSource } from 'typeorm';
import { defineRoute, z } from '@market/contracts';
import { createDataSource, initializeDataSource } from '../src/db';
import { createServiceApp, route } from '../src/http';
import { createLogger } from '../src/logging';
import { connectRedis, RedisUnavailableError, type RedisClient } from '../src/redis';
import { assertionFor, dropSchemas, resolveInfra, uniqueName, testAssertionVerifier } from '../src/testing';

/**
 * The kit's answer to slow or lost Postgres and Redis: every wait is bounded, the client hears a
 * 503 problem, the pool and the client recover on their own, and a database error reaches the log
 * without the values it quotes.
 */

const Ok = z.object({ ok: z.boolean() });
const testRoute = (id: string, method: 'get' | 'post', path: string) =>
  defineRoute({ id, service: 'identity', method, path, auth: 'public', token: 'ignored', summary: id, tags: ['test'], success: { status: 200, description: 'done', schema: Ok }, errors: [503] });

const slowStatement = testRoute('testSlowStatement', 'get', '/api/test/slow-statement');
const idleTransaction = testRoute('testIdleTransaction', 'post', '/api/test/idle-transaction');
const holdConnection = testRoute('testHoldConnection', 'post', '/api/test/hold-connection');
const sleep = testRoute('testSleep', 'post', '/api/test/sleep');
const commitLate = testRoute('testCommitLate', 'post', '/api/test/commit-late');
const addPhone = defineRoute({
  ...testRoute('testAddPhone', 'post', '/api/test/phones'),
  body: z.object({ phone: z.string() }),
});
const readRedis = testRoute('testReadRedis', 'get', '/api/test/redis');

const REDIS_TIMEOUT_MS = 300;

/** A route's handler that does `work` and answers `{ ok: true }`. */
const answersOk =
  <I>(work: (input: I) => Promise<unknown>) =>
  async (input: I) => {
    await work(input);
    return { ok: true };
  };

/**
 * A transaction that sits idle for `idleMs` after its first statement (the time passing is the
 * fault under test), then runs `last` if given, and commits.
 */
function idleInTransaction(ds: DataSource, idleMs: number, last?: string) {
  return ds.transaction(async (manager) => {
    await manager.query('SELECT 1');
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    if (last) await manager.query(last);
  });
}

describe('Postgres and Redis faults as the kit handles them', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'faults-'));
  const logFile = path.join(dir, 'service.log');
  let databaseUrl: string;
  let redisUrl: string;
  const schema = uniqueName('t_faults');
  let db: DataSource;
  let singleConnection: DataSource;
  let withDefaults: DataSource;
  let redis: RedisClient;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    ({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl } = await resolveInfra());
    db = createDataSource({ url: databaseUrl, schema, entities: [], migrations: [], statementTimeoutMs: 300, idleInTransactionTimeoutMs: 300 });
    await initializeDataSource(db, schema);
    await db.query(`CREATE TABLE phones (phone text CONSTRAINT phones_phone_key UNIQUE)`);
    singleConnection = createDataSource({ url: databaseUrl, schema, entities: [], migrations: [], poolSize: 1, connectTimeoutMs: 500 });
    await singleConnection.initialize();
    withDefaults = createDataSource({ url: databaseUrl, schema, entities: [], migrations: [] });
    await withDefaults.initialize();
    const log = createLogger('test', 'info', logFile);
    redis = await connectRedis(redisUrl, log, { commandTimeoutMs: REDIS_TIMEOUT_MS });
    const app = createServiceApp({
      log,
      verifyAssertion: testAssertionVerifier('identity'),
      validateResponses: true,
      readiness: async () => ({ own: {} }),
      routes: [
        route(slowStatement, answersOk(() => db.query('SELECT pg_sleep(2)'))),
        route(idleTransaction, answersOk(() => idleInTransaction(db, 700, 'SELECT 1'))),
        route(holdConnection, answersOk(() => singleConnection.query('SELECT pg_sleep(1.5)'))),
        route(sleep, answersOk(() => withDefaults.query('SELECT pg_sleep(1)'))),
        route(commitLate, answersOk(() => idleInTransaction(withDefaults, 600))),
        route(addPhone, answersOk(({ body }) => db.query('INSERT INTO phones (phone) VALUES ($1)', [body.phone]))),
        route(readRedis, answersOk(() => redis.get(uniqueName('t_faults_key')))),
      ],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await redis.quit().catch(() => undefined);
    await Promise.all([singleConnection.destroy(), withDefaults.destroy(), db.destroy()]);
    await dropSchemas(databaseUrl, [schema]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function call(method: 'GET' | 'POST', url: string, body?: unknown) {
    const started = Date.now();
    const res = await fetch(base + url, {
      method,
      headers: {
        'content-type': 'application/json',
        'x-internal-assertion': await assertionFor({ kind: 'anonymous', ip: null }, { service: 'identity', method, path: url.split('?')[0]! }),
      },
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    });
    const json = (await res.json()) as { code?: string };
    return { status: res.status, code: json.code, ms: Date.now() - started };
  }

  it('cancels a statement running past the statement timeout and answers 503', async () => {
    const res = await call('GET', '/api/test/slow-statement');
    expect(res).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(res.ms).toBeLessThan(1500);
  });

  it('ends a transaction left idle past the idle-in-transaction timeout, answers 503, and the pool recovers', async () => {
    expect(await call('POST', '/api/test/idle-transaction')).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect((await call('POST', '/api/test/phones', { phone: uniqueName('p') })).status).toBe(200);
  });

  it('answers 503 when no connection frees up within the connect timeout', async () => {
    // Which of the two reaches the pool first is the server's to decide, not the order they were sent in.
    const answers = await Promise.all([call('POST', '/api/test/hold-connection'), call('POST', '/api/test/hold-connection')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 503]);
    const waited = answers.find((a) => a.status === 503)!;
    expect(waited).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(waited.ms).toBeLessThan(1200);
  });

  it('answers 503 when Postgres ends the session under a statement or before COMMIT, and the pool reconnects by itself', async () => {
    const inStatement = call('POST', '/api/test/sleep');
    const beforeCommit = call('POST', '/api/test/commit-late');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [schema]);
    expect(await inStatement).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(await beforeCommit).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect((await call('POST', '/api/test/sleep')).status).toBe(200);
    expect((await call('POST', '/api/test/commit-late')).status).toBe(200);
  });

  it('logs a database error with its code, constraint and table, never the values it quotes', async () => {
    const phone = `138${Date.now().toString().slice(-8)}`;
    expect((await call('POST', '/api/test/phones', { phone })).status).toBe(200);
    expect(await call('POST', '/api/test/phones', { phone })).toMatchObject({ status: 500, code: 'INTERNAL' });

    const lines = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const logged = lines.find((line) => line.msg === 'unhandled error');
    expect(logged.err).toMatchObject({ type: 'QueryFailedError', code: '23505', constraint: 'phones_phone_key', table: 'phones' });
    expect(logged.err.stack).toContain('dependency-faults.test.ts');
    expect(JSON.stringify(lines)).not.toContain(phone);
    expect(JSON.stringify(logged)).not.toMatch(/INSERT|Key \(phone\)|parameters/);
  });

  it('fails a Redis command within its deadline while Redis is paused, answers 503, and works again after', async () => {
    expect((await call('GET', '/api/test/redis')).status).toBe(200);
    const admin = createClient({ url: redisUrl });
    await admin.connect();
    await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL']);
    // QUIT would wait out the pause like any other command
    admin.destroy();

    const started = Date.now();
    const [command, transaction] = await Promise.allSettled([
      redis.set(uniqueName('t_faults_key'), '1', { EX: 5 }),
      redis.multi().set(uniqueName('t_faults_key'), '1', { EX: 5 }).get('x').exec(),
    ]);
    const answered = Date.now() - started;
    const overHttp = await call('GET', '/api/test/redis');

    expect(command).toMatchObject({ status: 'rejected', reason: expect.any(RedisUnavailableError) });
    expect(transaction).toMatchObject({ status: 'rejected', reason: expect.any(RedisUnavailableError) });
    expect(answered).toBeLessThan(REDIS_TIMEOUT_MS + 300);
    expect(overHttp).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(overHttp.ms).toBeLessThan(REDIS_TIMEOUT_MS + 300);

    // the pause lasting its 1.5 s is the fault: Redis answers again once it is over
    await new Promise((resolve) => setTimeout(resolve, 1500 - (Date.now() - started)));
    expect((await call('GET', '/api/test/redis')).status).toBe(200);
  });

  it('fails Redis commands at once while Redis is unreachable, reconnects by itself, and keeps a wrong command a plain error', async () => {
    // The client reaches Redis through a relay the test can cut: closed, nothing listens on its port.
    const target = new URL(redisUrl);
    const sockets = new Set<Socket>();
    const relay = createServer((inbound) => {
      const outbound = connect(Number(target.port || 6379), target.hostname);
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    const listen = (port = 0) => new Promise<number>((resolve) => relay.listen(port, '127.0.0.1', () => resolve((relay.address() as AddressInfo).port)));
    const port = await listen();
    const client = await connectRedis(`redis://127.0.0.1:${port}`, createLogger('test', 'silent'), { commandTimeoutMs: 5000 });
    try {
      expect(await client.ping()).toBe('PONG');
      const lost = new Promise((resolve) => client.once('error', resolve));
      relay.close();
      for (const socket of sockets) socket.destroy();
      await lost;

      const started = Date.now();
      await expect(client.get('k')).rejects.toBeInstanceOf(RedisUnavailableError);
      expect(Date.now() - started).toBeLessThan(100);

      const back = new Promise((resolve) => client.once('ready', resolve));
      await listen(port);
      await back;
      expect(await client.ping()).toBe('PONG');
      await expect(client.sendCommand(['NO-SUCH-COMMAND'])).rejects.not.toBeInstanceOf(RedisUnavailableError);
    } finally {
      client.destroy();
      relay.close();
      for (const socket of sockets) socket.destroy();
    }
  });
});
