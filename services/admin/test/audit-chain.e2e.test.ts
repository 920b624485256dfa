import path from 'node:path';
import type { ServiceName } from '@market/contracts';
import { buildEvent } from '@market/shared/events';
import { uniqueName } from '@market/shared/testing';
import { api, eventually, newAdmin, publishRawAs, runProgram, startStack, type Stack } from '@market/testkit';
import { statementsNaming } from './helpers';
import { logAuditHeads } from '../src/application/log-audit-heads';
import { auditEntryHash } from '../src/persistence/audit-chain';
import { ChainAuditLog1767200000002 } from '../src/persistence/migrations/1767200000002-chain-audit-log';

/** Runs `npm run audit:verify`'s program from its sources against one schema. */
const runVerify = (env: NodeJS.ProcessEnv) => runProgram(path.resolve(__dirname, '..'), 'src/cli/audit-verify.ts', env);

/** The audit log's hash chains (ADR 0067), stored by two admin replicas consuming side by side. */
describe('audit log hash chains', () => {
  let stack: Stack;
  let auditor: { token: string };
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin'], replicas: { admin: 2 } });
    auditor = await newAdmin(stack, ['auditor']);
    env = { DATABASE_URL: String(stack.env.DATABASE_URL), DB_SCHEMA: stack.services.admin!.ctx.schema };
  });
  afterAll(() => stack?.stop());

  const db = () => stack.services.admin!.ctx.db;
  const verify = async (token = auditor.token) => api(stack.url).post('/api/admin/audit-logs/verify', undefined, token);

  const entry = (actor: string, i: number) => ({
    actor_type: 'user' as const,
    actor_id: actor,
    action: `step.${i}`,
    biz_type: 'test',
    biz_id: null,
    detail: { i, note: `entry ${i}`, nested: { b: 2, a: [1, 'x'] } },
    ip: '10.0.0.1',
    result: 'success' as const,
    request_id: null,
    occurred_at: new Date().toISOString(),
  });

  /** `count` entries from each producer, one list per producer. */
  const burstOf = (actor: string, producers: ServiceName[], count: number) =>
    producers.map((producer) => Array.from({ length: count }, (_, i) => buildEvent('audit.recorded', entry(actor, i), producer, null)));

  /** Publishes each producer's entries at once and waits until both replicas stored them all. */
  async function burst(actor: string, entries: ReturnType<typeof burstOf>) {
    await Promise.all(
      entries.map((events) =>
        publishRawAs(
          stack.env,
          events[0]!.producer as ServiceName,
          events.map((e) => ({ routingKey: e.type, content: Buffer.from(JSON.stringify(e)), options: { messageId: e.id } })),
        ),
      ),
    );
    await eventually(
      async () => (await db().query(`SELECT count(*)::int AS n FROM audit_logs WHERE actor_id = $1`, [actor]))[0].n as number,
      (n) => n === entries.flat().length,
    );
  }

  type Row = Record<string, unknown> & { id: string; producer: string; chain_seq: string; prev_hash: string; hash: string };
  const chainOf = async (producer: string): Promise<Row[]> =>
    db().query(`SELECT * FROM audit_logs WHERE producer = $1 ORDER BY chain_seq`, [producer]);

  it('entries stored in parallel by two replicas form one line per producer, and verify finds them intact', async () => {
    const actor = uniqueName('burst');
    const entries = burstOf(actor, ['catalog', 'orders'], 40);
    const sent = await statementsNaming(
      entries.flat().map((e) => e.id),
      () => burst(actor, entries),
    );
    // each transaction of either replica locked its entries' heads once and wrote all its entries in one statement
    const [{ transactions }] = await db().query(`SELECT count(DISTINCT xmin::text)::int AS transactions FROM audit_logs WHERE actor_id = $1`, [actor]);
    expect(transactions).toBeLessThan(80);
    expect(sent.filter((sql) => sql.includes('INSERT INTO audit_chains'))).toHaveLength(transactions);
    expect(sent.filter((sql) => sql.includes('INSERT INTO audit_logs'))).toHaveLength(transactions);
    for (const producer of ['catalog', 'orders']) {
      const chain = await chainOf(producer);
      expect(chain.map((r) => Number(r.chain_seq))).toEqual(chain.map((_, i) => i + 1));
      expect(chain[0]!.prev_hash).toBe('0'.repeat(64));
      chain.slice(1).forEach((row, i) => expect(row.prev_hash).toBe(chain[i]!.hash));
    }
    expect(await db().query(`SELECT producer, prev_hash FROM audit_logs GROUP BY producer, prev_hash HAVING count(*) > 1`)).toEqual([]);
    const res = await verify();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ breaks: [], entries: expect.any(Number), head_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(res.body.entries).toBeGreaterThanOrEqual(80);
    expect((await runVerify(env)).code).toBe(0);
    expect((await runVerify({ ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' })).code).toBe(2);
  }, 60_000);

  it('names the altered entry and its chain, through the route and audit:verify', async () => {
    const [, second] = await chainOf('catalog');
    await db().query(`UPDATE audit_logs SET detail = detail || '{"i": 99}' WHERE id = $1`, [second!.id]);
    try {
      expect((await verify()).body.breaks).toEqual([{ chain: 'catalog', entry: second!.id, problem: 'altered' }]);
      const cli = await runVerify(env);
      expect(cli.code).toBe(1);
      expect(cli.stdout).toContain(`BROKEN chain catalog: altered at entry ${second!.id}`);
    } finally {
      await db().query(`UPDATE audit_logs SET detail = $2 WHERE id = $1`, [second!.id, JSON.stringify(second!.detail)]);
    }
    expect((await verify()).body.breaks).toEqual([]);
  }, 60_000);

  it('names the entry after a removed one, and a removed newest entry through the head', async () => {
    const chain = await chainOf('orders');
    const remove = async (row: Row, expected: unknown) => {
      await db().query(`DELETE FROM audit_logs WHERE id = $1`, [row.id]);
      try {
        expect((await verify()).body.breaks).toEqual([expected]);
      } finally {
        const columns = Object.keys(row);
        const values = Object.values(row).map((v) => (v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v));
        await db().query(`INSERT INTO audit_logs (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, values);
      }
    };
    await remove(chain[4]!, { chain: 'orders', entry: chain[5]!.id, problem: 'removed_or_inserted' });
    await remove(chain.at(-1)!, { chain: 'orders', entry: null, problem: 'head_mismatch' });
    expect((await verify()).body.breaks).toEqual([]);
  });

  it('names an entry inserted past the head, even one hashed as the writer would', async () => {
    const chain = await chainOf('orders');
    const last = chain.at(-1)!;
    const forged = { ...last, id: '0193a000-0000-7000-8000-0000000f0a6e', action: 'forged', created_at: new Date(), chain_seq: String(Number(last.chain_seq) + 1) };
    const hash = auditEntryHash(last.hash, forged as never);
    await db().query(
      `INSERT INTO audit_logs (id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, producer, created_at, chain_seq, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [forged.id, last.actor_type, last.actor_id, 'forged', last.biz_type, last.biz_id, JSON.stringify(last.detail), last.ip, last.result, last.request_id, 'orders', forged.created_at, forged.chain_seq, last.hash, hash],
    );
    try {
      expect((await verify()).body.breaks).toEqual([{ chain: 'orders', entry: forged.id, problem: 'removed_or_inserted' }]);
    } finally {
      await db().query(`DELETE FROM audit_logs WHERE id = $1`, [forged.id]);
    }
    expect((await verify()).body.breaks).toEqual([]);
  });

  it('logs every chain’s head and the hash over them, the anchor verify answers against', async () => {
    const logged: unknown[] = [];
    const anchor = await logAuditHeads({ db: db(), log: { info: (fields: unknown) => logged.push(fields) } as never });
    const [catalog] = await db().query(`SELECT hash, chain_seq FROM audit_logs WHERE producer = 'catalog' ORDER BY chain_seq DESC LIMIT 1`);
    expect(anchor.chains).toEqual(expect.arrayContaining([{ chain: 'catalog', seq: catalog.chain_seq, head_hash: catalog.hash }]));
    expect(logged).toEqual([{ audit_heads: anchor }]);
    expect((await verify()).body.head_hash).toBe(anchor.head_hash);
  });

  it('is for whoever reads the audit log: auditors and super admins (finance verifies the ledger through the money check)', async () => {
    expect((await verify((await newAdmin(stack, ['reviewer'])).token)).status).toBe(403);
    expect((await verify((await newAdmin(stack, ['finance'])).token)).status).toBe(403);
    expect((await verify((await newAdmin(stack, ['super_admin'])).token)).status).toBe(200);
    expect((await api(stack.url).post('/api/admin/audit-logs/verify', undefined)).status).toBe(401);
  });

  it('the migration chains the entries already stored, each producer’s in the order they happened', async () => {
    const migration = new ChainAuditLog1767200000002();
    const stored = await db().query(`SELECT count(*)::int AS n FROM audit_logs`);
    await db().transaction(async (tx) => {
      await migration.down(tx);
      await migration.up(tx);
    });
    const res = await verify();
    expect(res.body).toMatchObject({ breaks: [], entries: stored[0].n });
    const chain = await chainOf('catalog');
    const happened = [...chain].sort((a, b) => (a.created_at as Date).getTime() - (b.created_at as Date).getTime() || (a.id < b.id ? -1 : 1));
    expect(chain.map((r) => r.id)).toEqual(happened.map((r) => r.id));
  });
});
