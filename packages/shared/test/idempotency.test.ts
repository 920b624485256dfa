import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { defineRoute, IdParams, z } from '@market/contracts';
import { createDataSource, initializeDataSource } from '../src/db';
import { createServiceApp, idempotencyMigrations, IdempotencyStore, problems, route } from '../src/http';
import { createLogger } from '../src/logging';
import { assertionFor, dropSchemas, resolveInfra, uniqueName, testAssertionVerifier } from '../src/testing';

const charge = defineRoute({
  id: 'testCharge',
  service: 'wallet',
  method: 'post',
  path: '/api/test/charges/{id}',
  auth: 'user',
  summary: 'a money-moving POST for the test',
  tags: ['test'],
  params: IdParams,
  headers: z.object({ 'idempotency-key': z.string().max(200).optional() }),
  body: z.object({ amount: z.number().int() }).strict(),
  success: { status: 201, description: 'charged', schema: z.object({ id: z.string(), amount: z.number(), serial: z.number() }) },
  errors: [400, 409],
});

/** Claims lapse quickly here, so a handler that outlives a lease is only a few seconds slow. */
const LEASE_SECONDS = 1;
const SLOW = 2500;
/** Each run of the handler takes the next of these, if any, and waits for it before answering. */
const heldRuns: Array<Promise<void>> = [];

function holdNextRun(outcome: 'answer' | 'fail' = 'answer') {
  let letGo!: () => void;
  heldRuns.push(
    new Promise<void>((resolve, reject) => {
      letGo = () => (outcome === 'answer' ? resolve() : reject(problems.conflict('the slow run failed')));
    }),
  );
  return letGo;
}

describe('Idempotency-Key on money-moving POSTs (docs/rules.md §1)', () => {
  let db: DataSource;
  let server: Server;
  let base: string;
  let schema: string;
  let executed = 0;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = (await resolveInfra()).DATABASE_URL;
    schema = uniqueName('t_idem');
    db = createDataSource({ url: databaseUrl, schema, entities: [], migrations: idempotencyMigrations });
    await initializeDataSource(db, schema);
    const app = createServiceApp({
      log: createLogger('test', 'silent'),
      verifyAssertion: testAssertionVerifier('wallet'),
      validateResponses: true,
      idempotency: new IdempotencyStore(db, { leaseSeconds: LEASE_SECONDS }),
      readiness: async () => ({ own: {} }),
      routes: [
        route(charge, async ({ params, body }) => {
          executed += 1;
          const serial = executed;
          if (body.amount === 13) throw problems.conflict('unlucky amount');
          // a use case that takes a while, on purpose: two racing requests overlap while the first holds the claim
          if (body.amount === 500) await new Promise((r) => setTimeout(r, 300));
          // slower than the lease, on purpose: what the claim's renewal is tested against
          if (body.amount === SLOW) await new Promise((r) => setTimeout(r, 2.5 * LEASE_SECONDS * 1000));
          const held = heldRuns.shift();
          if (held) await held;
          return { id: params.id, amount: body.amount, serial };
        }),
      ],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await db.destroy();
    await dropSchemas(databaseUrl, [schema]);
  });

  async function post(body: unknown, key?: string, sub = 'user-1') {
    const path = '/api/test/charges/c-1';
    return fetch(base + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-internal-assertion': await assertionFor({ kind: 'user', sub, sid: 's', ip: null }, { service: 'wallet', method: 'POST', path }),
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify(body),
    });
  }

  it('answers a repeat with the first response and runs the use case once', async () => {
    const before = executed;
    const key = uniqueName('k');
    const first = await post({ amount: 100 }, key);
    const again = await post({ amount: 100 }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(await first.json());
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(executed - before).toBe(1);
  });

  it('refuses the same key with a different body: 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = uniqueName('k');
    expect((await post({ amount: 100 }, key)).status).toBe(201);
    const reused = await post({ amount: 200 }, key);
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as { code: string }).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('lets two racing requests with one key run the use case once', async () => {
    const before = executed;
    const key = uniqueName('k');
    const [a, b] = await Promise.all([post({ amount: 500 }, key), post({ amount: 500 }, key)]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect(executed - before).toBe(1);
    const later = await post({ amount: 500 }, key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
  });

  it('releases the key when the request fails, so a retry runs again', async () => {
    const before = executed;
    const key = uniqueName('k');
    expect((await post({ amount: 13 }, key)).status).toBe(409);
    expect((await post({ amount: 13 }, key)).status).toBe(409);
    expect(executed - before).toBe(2);
  });

  it('keeps keys apart per caller, and does nothing without the header', async () => {
    const before = executed;
    const key = uniqueName('k');
    await post({ amount: 100 }, key, 'user-a');
    await post({ amount: 100 }, key, 'user-b');
    await post({ amount: 100 });
    await post({ amount: 100 });
    expect(executed - before).toBe(4);
    expect((await post({ amount: 100 }, 'k'.repeat(201))).status).toBe(400);
  });

  it('forgets keys after their life, so the same key runs again', async () => {
    const before = executed;
    const key = uniqueName('k');
    await post({ amount: 100 }, key);
    const store = new IdempotencyStore(db, { leaseSeconds: LEASE_SECONDS });
    expect(await store.purgeExpired()).toBe(0);
    await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
    expect(await store.purgeExpired()).toBe(1);
    const again = await post({ amount: 100 }, key);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(executed - before).toBe(2);
  });

  const claimOf = async (key: string) =>
    (await db.query(`SELECT state, claim_token FROM idempotency_keys WHERE key = $1`, [key]))[0] as
      | { state: string; claim_token: string | null }
      | undefined;

  /** What a holder that stalled past its lease (a long GC pause, a frozen VM) looks like to others. */
  const lapseLease = (key: string) =>
    db.query(`UPDATE idempotency_keys SET lease_expires_at = now() - interval '1 second' WHERE key = $1`, [key]);

  async function untilClaimed(key: string, other?: string | null) {
    const deadline = Date.now() + 5000;
    for (;;) {
      const claim = await claimOf(key);
      if (claim?.state === 'in_progress' && claim.claim_token !== other) return claim.claim_token;
      if (Date.now() > deadline) throw new Error(`no new claim on ${key}; last: ${JSON.stringify(claim)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * A holder of `key` that stalls past its lease and a successor that takes the claim over, each
   * held in its use case until released; the stalled one's run ends with `stalledOutcome`.
   */
  async function successorOfLapsedHolder(key: string, stalledOutcome: 'answer' | 'fail') {
    const releaseStalled = holdNextRun(stalledOutcome);
    const stalled = post({ amount: 100 }, key);
    const stalledToken = await untilClaimed(key);
    await lapseLease(key);
    const releaseSuccessor = holdNextRun();
    const successor = post({ amount: 100 }, key);
    await untilClaimed(key, stalledToken);
    return { releaseStalled, stalled, releaseSuccessor, successor };
  }

  it('keeps the claim of a request slower than the lease, so a repeat meanwhile is 409 and the use case runs once', async () => {
    const before = executed;
    const key = uniqueName('k');
    const slow = post({ amount: SLOW }, key);
    await untilClaimed(key);
    // the lease's length passing is the subject: the claim must outlive it while the request runs
    await new Promise((r) => setTimeout(r, 1.5 * LEASE_SECONDS * 1000));
    const meanwhile = await post({ amount: SLOW }, key);
    expect(meanwhile.status).toBe(409);
    expect(((await meanwhile.json()) as { code: string }).code).toBe('CONFLICT');
    const first = await slow;
    expect(first.status).toBe(201);
    const later = await post({ amount: SLOW }, key);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(await later.json()).toEqual(await first.json());
    expect(executed - before).toBe(1);
  });

  it('lets a holder that lost its lease neither release nor complete the claim its successor took over', async () => {
    const key = uniqueName('k');
    const { releaseStalled, stalled, releaseSuccessor, successor } = await successorOfLapsedHolder(key, 'fail');

    releaseStalled();
    expect((await stalled).status).toBe(409);
    const repeat = await post({ amount: 100 }, key);
    expect(repeat.status).toBe(409);
    expect(((await repeat.json()) as { code: string }).code).toBe('CONFLICT');

    releaseSuccessor();
    const answered = await successor;
    expect(answered.status).toBe(201);
    const replay = await post({ amount: 100 }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await answered.json());
  });

  it('stores the successor’s response, not that of a holder that lost its lease and finished first', async () => {
    const key = uniqueName('k');
    const { releaseStalled, stalled, releaseSuccessor, successor } = await successorOfLapsedHolder(key, 'answer');

    releaseStalled();
    expect((await stalled).status).toBe(201);
    expect((await post({ amount: 100 }, key)).status).toBe(409);

    releaseSuccessor();
    const answered = await successor;
    const replay = await post({ amount: 100 }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await answered.json());
  });
});
