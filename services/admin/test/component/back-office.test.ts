import {
  getDashboard,
  listAuditLogs,
  listingStats,
  listSystemConfigs,
  matchAdminUser,
  orderStats,
  SYSTEM_CONFIG_DEFAULTS,
  systemConfigValues,
  updateSystemConfig,
  verifyAuditLogs,
  userStats,
  walletStats,
  type EventData,
} from '@market/contracts';
import { connect } from 'amqplib';
import { ASSERTION_HEADER, type AdminIdentity } from '@market/shared/auth';
import type { Tx } from '@market/shared/db';
import { buildEvent, type DomainEvent } from '@market/shared/events';
import { assertionFor } from '@market/shared/testing';
import { answer, asAdmin, asUser, eventually, publishRawAs, refuse, startComponent, type Component } from '@market/testkit';
import { storeAuditEntries } from '../../src/events/store-audit-entries';
import { verifyAuditChains } from '../../src/persistence/audit-chain';
import { newAdmin, statementsNaming, uniqueUsername } from '../helpers';

// what the migration seeds must be what services fall back on until admin answers
const DEFAULTS = SYSTEM_CONFIG_DEFAULTS;

/** Every other service down, as the dashboard meets them: a bare 503 from each. */
const down = [userStats, listingStats, orderStats, walletStats].map((contract) => answer(contract, () => refuse(503, 'UNAVAILABLE')));

describe('admin alone: system configs and their event, the audit log, the dashboard, the admin match', () => {
  let admin: Component;
  let root: AdminIdentity;

  beforeAll(async () => {
    admin = await startComponent('admin', { answers: down });
    root = asAdmin((await newAdmin(admin)).id);
  });
  afterEach(() => admin.verify());
  afterAll(() => admin?.stop());

  const configs = async () => (await admin.ok(listSystemConfigs, { as: root })).items;
  const update = (key: string, body: unknown, as: AdminIdentity = root) => admin.call(updateSystemConfig, { params: { key }, body, as });
  const audit = (query: Record<string, string | number>) => admin.call(listAuditLogs, { as: root, query });
  const match = (name?: string) => admin.internalAs('catalog').call(matchAdminUser, name === undefined ? {} : { query: { name } });

  describe('system configs', () => {
    it('lists every docs/rules.md §9 key with its default, a description, and no author yet', async () => {
      const byKey = Object.fromEntries((await configs()).map((i) => [i.key, i]));
      for (const [key, value] of Object.entries(DEFAULTS)) {
        expect(byKey[key]).toEqual({ key, value, description: expect.any(String), updated_at: null, updated_by: null });
        expect(byKey[key]!.description.length).toBeGreaterThan(10);
      }
    });

    it('refuses a value its key does not allow with 400 and the reason, changing nothing', async () => {
      for (const value of [0, 43_201, 1.5, '15', null, [15], { minutes: 15 }]) {
        const res = await update('order.payment_timeout_minutes', { value });
        expect([res.status, res.body.code, res.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', 'value']);
      }
      expect((await update('platform.commission_rate_bps', { value: 5001 })).status).toBe(400);
      expect((await update('platform.commission_rate_bps', {})).status).toBe(400);
      expect((await configs()).find((i) => i.key === 'order.payment_timeout_minutes')!.value).toBe(15);
    });

    it('answers 404 for an unknown key', async () => {
      const res = await update('order.no_such_key', { value: 10 });
      expect([res.status, res.body.code]).toEqual([404, 'NOT_FOUND']);
      expect((await update('constructor', { value: 10 })).status).toBe(404);
    });

    it('changes a value, publishes system_config.changed, records an audit entry, and serves it internally', async () => {
      const res = await update('order.payment_timeout_minutes', { value: 20 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        key: 'order.payment_timeout_minutes',
        value: 20,
        description: expect.any(String),
        updated_at: expect.stringMatching(/Z$/),
        updated_by: root.sub,
      });

      const [event] = await admin.awaitPublished('system_config.changed', (e) => e.data.key === 'order.payment_timeout_minutes');
      expect(event).toMatchObject({ type: 'system_config.changed', producer: 'admin', data: { value: 20, updated_by: root.sub, updated_at: res.body.updated_at } });

      const entry = await eventually(async () => {
        const page = await audit({ action: 'system_config.update' });
        return page.body.items.find((e: { biz_id: string; detail: { value: number } }) => e.biz_id === 'order.payment_timeout_minutes' && e.detail.value === 20);
      });
      expect(entry).toMatchObject({ actor_type: 'admin', actor_id: root.sub, biz_type: 'system_config', result: 'success', detail: { previous_value: 15, value: 20 } });

      const values = await admin.internalAs('orders').call(systemConfigValues);
      // with the change time, so a service keeping a copy keeps the newest (ADR 0052)
      expect(values.items).toContainEqual({ key: 'order.payment_timeout_minutes', value: 20, updated_at: res.body.updated_at });
      expect(values.items).toContainEqual({ key: 'order.receive_timeout_minutes', value: DEFAULTS['order.receive_timeout_minutes'], updated_at: null });
      expect(values.items).toHaveLength(Object.keys(DEFAULTS).length);
    });

    it('accepts an unchanged value', async () => {
      const first = await update('platform.commission_rate_bps', { value: 500 });
      expect(first.status).toBe(200);
      expect(first.body.value).toBe(500);
      expect(first.body.updated_by).toBe(root.sub);
    });

    it('two admins changing one key at once both succeed, each change is published, and the last write is what everyone reads', async () => {
      const other = asAdmin((await newAdmin(admin)).id);
      const results = await Promise.all([update('order.handoff_timeout_minutes', { value: 45 }), update('order.handoff_timeout_minutes', { value: 60 }, other)]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      // however close together, two changes never share a change time: services keep the later one (ADR 0052)
      expect(results[0]!.body.updated_at).not.toBe(results[1]!.body.updated_at);
      const row = (await configs()).find((i) => i.key === 'order.handoff_timeout_minutes');
      const last = results.map((r) => r.body).sort((a, b) => a.updated_at.localeCompare(b.updated_at)).pop();
      expect(row).toEqual(last);
      // each change is in the outbox with its write, before the answer
      const [{ count }] = await admin.service.ctx.db.query(
        `SELECT count(*)::int AS count FROM outbox WHERE type = 'system_config.changed' AND payload->'data'->>'key' = 'order.handoff_timeout_minutes'`,
      );
      expect(count).toBe(2);
      await admin.awaitPublished('system_config.changed', (e) => e.data.key === 'order.handoff_timeout_minutes', 2);
    });
  });

  describe('audit log', () => {
    const entry = (e: { actor_id: string; action: string; biz_type: string }): EventData<'audit.recorded'> => ({
      actor_type: 'user',
      actor_id: e.actor_id,
      action: e.action,
      biz_type: e.biz_type,
      biz_id: null,
      detail: {},
      ip: '10.0.0.1',
      result: 'success',
      request_id: null,
      occurred_at: new Date().toISOString(),
    });
    const stored = (actor: string, count: number) =>
      eventually(
        async () => (await audit({ actor_id: actor, limit: 100 })).body,
        (page) => page.items.length === count,
      );

    it('stores audit.recorded from any producer and filters by actor, action and biz type, newest first', async () => {
      const actor = uniqueUsername('actor');
      for (const e of [
        { actor_id: actor, action: 'listing.create', biz_type: 'listing' },
        { actor_id: actor, action: 'listing.update', biz_type: 'listing' },
        { actor_id: actor, action: 'order.create', biz_type: 'order' },
      ]) {
        await admin.publish('audit.recorded', entry(e));
      }
      const all = await stored(actor, 3);
      expect(all.items.map((e: { action: string }) => e.action)).toEqual(['order.create', 'listing.update', 'listing.create']);
      expect(all.items[0]).toMatchObject({ actor_type: 'user', actor_id: actor, ip: '10.0.0.1', detail: {}, result: 'success' });

      const listings = await audit({ actor_id: actor, biz_type: 'listing' });
      expect(listings.body.items.map((e: { action: string }) => e.action)).toEqual(['listing.update', 'listing.create']);
      expect((await audit({ actor_id: actor, biz_type: 'listing', action: 'listing.create' })).body.items).toHaveLength(1);
      expect((await audit({ actor_id: actor, action: 'no.such' })).body).toEqual({ items: [], next_cursor: null });
    });

    it('pages with a cursor through every entry exactly once', async () => {
      const actor = uniqueUsername('pager');
      for (let i = 0; i < 7; i++) await admin.publish('audit.recorded', entry({ actor_id: actor, action: `step.${i}`, biz_type: 'paging' }));
      await stored(actor, 7);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: { items: Array<{ action: string }>; next_cursor: string | null } } = await audit(
          cursor ? { actor_id: actor, limit: 3, cursor } : { actor_id: actor, limit: 3 },
        );
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((e) => e.action));
        cursor = res.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(['step.6', 'step.5', 'step.4', 'step.3', 'step.2', 'step.1', 'step.0']);
    });

    it('refuses a bad cursor or limit with 400', async () => {
      expect((await audit({ cursor: 'garbage' })).status).toBe(400);
      const forged = Buffer.from(JSON.stringify({ v: 'not a date', id: 'x' })).toString('base64url');
      expect((await audit({ cursor: forged })).status).toBe(400);
      expect((await audit({ limit: 0 })).status).toBe(400);
      expect((await audit({ limit: 101 })).status).toBe(400);
      expect((await audit({ sort: 'asc' })).status).toBe(400);
    });

    it('stores an event handled twice once, even past the inbox', async () => {
      const actor = uniqueUsername('redeliver');
      const event = await admin.publish('audit.recorded', entry({ actor_id: actor, action: 'redelivered.once', biz_type: 'test' }));
      await stored(actor, 1);
      await admin.service.ctx.db.query(`DELETE FROM inbox WHERE event_id = $1`, [event.id]);
      await admin.service.consumer.handle(event);
      const res = await audit({ actor_id: actor });
      expect(res.body.items).toHaveLength(1);
      expect(res.body.items[0].id).toBe(event.id);
    });

    describe('a batch of entries', () => {
      type Producer = 'orders' | 'catalog' | 'identity';
      type Row = { id: string; producer: string; chain_seq: string; prev_hash: string; hash: string; tx: string };
      const db = () => admin.service.ctx.db;
      const auditEvent = (actor: string, producer: Producer, action: string, detail: Record<string, unknown> = {}) =>
        buildEvent('audit.recorded', { ...entry({ actor_id: actor, action, biz_type: 'test' }), detail }, producer, null);
      /** The actor's rows, each chain in its order, with the transaction that wrote each. */
      const rowsOf = (actor: string): Promise<Row[]> =>
        db().query(`SELECT id, producer, chain_seq, prev_hash, hash, xmin::text AS tx FROM audit_logs WHERE actor_id = $1 ORDER BY producer, chain_seq`, [actor]);
      const chainOf = async (actor: string, producer: Producer) => (await rowsOf(actor)).filter((row) => row.producer === producer);
      /** How many transactions wrote the rows of `events`. */
      const transactionsOf = async (actor: string, events: Array<{ id: string }>) =>
        new Set((await rowsOf(actor)).filter((row) => events.some((e) => e.id === row.id)).map((row) => row.tx)).size;
      const head = async (producer: Producer) => (await db().query(`SELECT seq, head_hash FROM audit_chains WHERE chain = $1`, [producer]))[0];

      /** The rows are those of `ids`, in that order, each following the one before it: the next seq, the previous row's hash. */
      function expectLinked(rows: Row[], ids: string[]) {
        expect(rows.map((row) => row.id)).toEqual(ids);
        rows.slice(1).forEach((row, i) => {
          expect(BigInt(row.chain_seq)).toBe(BigInt(rows[i]!.chain_seq) + 1n);
          expect(row.prev_hash).toBe(rows[i]!.hash);
        });
      }

      async function expectIntact() {
        const verified = await db().transaction((tx) => verifyAuditChains(tx));
        expect(verified.breaks).toEqual([]);
        expect((await admin.ok(verifyAuditLogs, { as: root })).breaks).toEqual([]);
      }

      /** A transaction of its own that runs `work` and stays open until released, as another replica's batch holding its chains' heads. */
      async function heldTransaction(work: (tx: Tx) => Promise<unknown>) {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let started!: (pid: number) => void;
        const pid = new Promise<number>((resolve) => (started = resolve));
        let workDone!: () => void;
        /** the work has run and its locks are held (a work that waits for a lock has not) */
        const worked = new Promise<void>((resolve) => (workDone = resolve));
        const done = db().transaction(async (tx) => {
          started((await tx.query(`SELECT pg_backend_pid() AS pid`))[0].pid);
          await work(tx);
          workDone();
          await released;
        });
        done.catch(() => undefined);
        return { pid: await pid, release, done, worked };
      }

      /** Until `pid` waits for a lock `holder` holds. */
      const waitsForLock = (pid: number, holder: number) =>
        eventually(
          async () => (await db().query(`SELECT pg_blocking_pids($1::int) AS blockers`, [pid]))[0].blockers as number[],
          (blockers) => blockers.includes(holder),
        );

      /**
       * Publishes `events` as their producers would, while another transaction holds the orders
       * chain's head: the first delivery (an orders entry) goes alone and waits for it, the rest are
       * handed to the consumer meanwhile, and once the head is released they go as one batch.
       */
      async function burstBehindHeldHead(actor: string, events: Array<DomainEvent<'audit.recorded'>>) {
        const holder = await heldTransaction((tx) => storeAuditEntries([auditEvent(actor, 'orders', 'holder')], tx));
        await holder.worked;
        for (const event of events) {
          await publishRawAs(admin.env, event.producer as Producer, [
            { routingKey: event.type, content: Buffer.from(JSON.stringify(event)), options: { messageId: event.id } },
          ]);
        }
        const connection = await connect(String(admin.env.AMQP_URL));
        try {
          const channel = await connection.createChannel();
          await eventually(async () => (await channel.checkQueue(admin.service.consumer.queues.main)).messageCount, (ready) => ready === 0);
          await channel.close();
        } finally {
          await connection.close();
        }
        await eventually(
          async () => (await db().query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))`, [holder.pid]))[0].n,
          (n) => n > 0,
        );
        // handed out is not yet taken in: a moment for the consumer to read what the broker sent (room for a loaded machine)
        await new Promise((resolve) => setTimeout(resolve, 500));
        holder.release();
        await holder.done;
      }

      it('goes in two statements, each producer’s entries linked in delivery order, an id stored already and a copy in the batch left out', async () => {
        const actor = uniqueUsername('batch');
        const stored = auditEvent(actor, 'orders', 'stored.before');
        await db().transaction((tx) => storeAuditEntries([stored], tx));
        const [o1, o2, c1, o3] = (['orders', 'orders', 'catalog', 'orders'] as const).map((producer, i) => auditEvent(actor, producer, `batched.${i}`));
        const catalogBefore = (await head('catalog')) ?? { seq: '0', head_hash: '0'.repeat(64) };
        const sent: string[] = [];
        await db().transaction(async (tx) => {
          const noted = { query: (sql: string, params?: unknown[]) => (sent.push(sql), tx.query(sql, params)) };
          await storeAuditEntries([o1!, stored, o2!, c1!, o2!, o3!], noted);
        });
        expect(sent).toHaveLength(2);
        expect(sent[0]).toContain('INSERT INTO audit_chains');
        expect(sent[1]).toContain('INSERT INTO audit_logs');

        const orders = await chainOf(actor, 'orders');
        expectLinked(orders, [stored.id, o1!.id, o2!.id, o3!.id]);
        expect(await head('orders')).toEqual({ seq: orders[3]!.chain_seq, head_hash: orders[3]!.hash });
        const [catalog] = await chainOf(actor, 'catalog');
        expect(catalog).toMatchObject({ id: c1!.id, prev_hash: catalogBefore.head_hash, chain_seq: String(BigInt(catalogBefore.seq) + 1n) });
        expect(await head('catalog')).toEqual({ seq: catalog!.chain_seq, head_hash: catalog!.hash });
        await expectIntact();
      });

      it('moves no chain when every entry is stored already', async () => {
        const actor = uniqueUsername('stored');
        const entries = [auditEvent(actor, 'orders', 'once'), auditEvent(actor, 'catalog', 'once')];
        await db().transaction((tx) => storeAuditEntries(entries, tx));
        const heads = [await head('orders'), await head('catalog')];
        await db().transaction((tx) => storeAuditEntries(entries, tx));
        expect([await head('orders'), await head('catalog')]).toEqual(heads);
        expect(await rowsOf(actor)).toHaveLength(2);
      });

      it('locks its chains in chain order: two batches over the same producers in opposite orders queue instead of deadlocking', async () => {
        const actor = uniqueUsername('crosswise');
        const [h, c1, i1, o1, o2, c2] = (['identity', 'catalog', 'identity', 'orders', 'orders', 'catalog'] as const).map((producer, i) =>
          auditEvent(actor, producer, `crosswise.${i}`),
        );
        const holder = await heldTransaction((tx) => storeAuditEntries([h!], tx));
        // identity's head held before the next batch starts, or that batch could take it first
        await holder.worked;
        // takes catalog's head and waits for identity's; orders' comes last in either order
        const earlier = await heldTransaction((tx) => storeAuditEntries([c1!, i1!, o1!], tx));
        await waitsForLock(earlier.pid, holder.pid);
        // in chain order, waits for catalog's head holding nothing; in delivery order it would take orders' first: crosswise
        const later = await heldTransaction((tx) => storeAuditEntries([o2!, c2!], tx));
        await waitsForLock(later.pid, earlier.pid);
        for (const held of [holder, earlier, later]) held.release();
        await Promise.all([holder.done, earlier.done, later.done]);
        expectLinked(await chainOf(actor, 'identity'), [h!.id, i1!.id]);
        expectLinked(await chainOf(actor, 'catalog'), [c1!.id, c2!.id]);
        expectLinked(await chainOf(actor, 'orders'), [o1!.id, o2!.id]);
        await expectIntact();
      });

      it('through the inbox: one lock and one insert per transaction, however many entries and producers, a republished entry linking nothing', async () => {
        const actor = uniqueUsername('inbox');
        // stored with no inbox row, as after the inbox was purged: its copy reaches the handler
        const stored = auditEvent(actor, 'orders', 'stored.before');
        await db().transaction((tx) => storeAuditEntries([stored], tx));
        const [o1, c1, o2, c2, o3] = (['orders', 'catalog', 'orders', 'catalog', 'orders'] as const).map((producer, i) => auditEvent(actor, producer, `inbox.${i}`));
        const events = [o1!, c1!, o2!, stored, c2!, o3!];
        const sent = await statementsNaming(
          events.map((e) => e.id),
          async () => {
            await burstBehindHeldHead(actor, events);
            await eventually(async () => (await rowsOf(actor)).length, (n) => n === 7);
          },
        );
        // o1 alone, then everything else together
        expect(sent.filter((sql) => sql.includes('INSERT INTO audit_chains'))).toHaveLength(2);
        expect(sent.filter((sql) => sql.includes('INSERT INTO audit_logs'))).toHaveLength(2);
        // after the entry stored before, the holder's, then the batch's in delivery order
        const orders = await chainOf(actor, 'orders');
        expectLinked(orders, [stored.id, orders[1]!.id, o1!.id, o2!.id, o3!.id]);
        expectLinked(await chainOf(actor, 'catalog'), [c1!.id, c2!.id]);
        expect(await transactionsOf(actor, [o1!, c1!, o2!, c2!, o3!])).toBe(2);
        await expectIntact();
      });

      it('when Postgres refuses one entry of a batch, the others are stored one by one and linked, and the refused one is retried and parked alone', async () => {
        const actor = uniqueUsername('refused');
        const [o1, c1, o2, c2] = (['orders', 'catalog', 'orders', 'catalog'] as const).map((producer, i) => auditEvent(actor, producer, `refused.${i}`));
        // jsonb holds no \u0000: Postgres refuses this entry, and with it its batch's statement
        const refused = auditEvent(actor, 'orders', 'refused', { note: 'nul \u0000' });
        await burstBehindHeldHead(actor, [o1!, c1!, refused, o2!, c2!]);
        await eventually(async () => (await rowsOf(actor)).length, (n) => n === 5);
        const orders = await chainOf(actor, 'orders');
        expectLinked(orders, [orders[0]!.id, o1!.id, o2!.id]);
        expectLinked(await chainOf(actor, 'catalog'), [c1!.id, c2!.id]);
        // o1 alone before the batch, then each of the failed batch's others in its own transaction
        expect(await transactionsOf(actor, [o1!, c1!, o2!, c2!])).toBe(4);
        await expectIntact();

        const connection = await connect(String(admin.env.AMQP_URL));
        try {
          const channel = await connection.createChannel();
          const dead = admin.service.consumer.queues.dead;
          await eventually(async () => (await channel.checkQueue(dead)).messageCount, (n) => n > 0, 20_000);
          const parked = await channel.get(dead, { noAck: true });
          expect(parked && JSON.parse(parked.content.toString()).id).toBe(refused.id);
          await channel.close();
        } finally {
          await connection.close();
        }
        expect(await rowsOf(actor)).toHaveLength(5);
      }, 30_000);
    });
  });

  describe('dashboard', () => {
    it('still answers while every other service is down: its own admin count, every other figure null and the services named', async () => {
      const body = await admin.ok(getDashboard, { as: root });
      expect(body.admins_total).toBeGreaterThanOrEqual(1);
      expect(body.unavailable).toEqual(['identity', 'catalog', 'orders', 'wallet']);
      const { admins_total: _admins, unavailable: _unavailable, last_30_days: days, ...figures } = body;
      expect(Object.keys(figures)).toHaveLength(14);
      expect(Object.entries(figures).filter(([, value]) => value !== null)).toEqual([]);
      expect(days).toHaveLength(30);
      for (const { date: _date, ...day } of days) expect(Object.values(day)).toEqual([null, null, null, null, null]);
      expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    });
  });

  describe('GET /internal/admin-users/match', () => {
    it('matches the exact username first, then a nickname exactly one active admin has', async () => {
      const nick = uniqueUsername('nick');
      const byUsername = await newAdmin(admin, { nickname: 'Some Nickname' });
      const holder = await newAdmin(admin, { nickname: byUsername.username });
      const unique = await newAdmin(admin, { nickname: nick });

      const first = await match(byUsername.username);
      expect(first).toEqual({ id: byUsername.id, username: byUsername.username, nickname: 'Some Nickname' });
      expect(holder.id).not.toBe(first.id);
      expect(await match(nick)).toEqual({ id: unique.id, username: unique.username, nickname: nick });
    });

    it('matches no one for a nickname two active admins share, or for a case-different name', async () => {
      const shared = `shared-${uniqueUsername()}`;
      const a = await newAdmin(admin, { nickname: shared });
      await newAdmin(admin, { nickname: shared });
      await expect(match(shared)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
      await expect(match(a.username.toUpperCase())).rejects.toMatchObject({ status: 404 });
    });

    it('ignores disabled admins, so a shared nickname with one disabled holder matches the active one', async () => {
      const shared = `half-${uniqueUsername()}`;
      const active = await newAdmin(admin, { nickname: shared });
      const disabled = await newAdmin(admin, { nickname: shared });
      await admin.service.ctx.db.query(`UPDATE admin_users SET status = 'disabled' WHERE id = $1`, [disabled.id]);
      expect((await match(shared)).id).toBe(active.id);
      await expect(match(disabled.username)).rejects.toMatchObject({ status: 404 });
    });

    it('needs a name, and does not answer a user assertion', async () => {
      await expect(match()).rejects.toMatchObject({ status: 400 });
      const res = await fetch(`${admin.url}/internal/admin-users/match?name=admin`, {
        headers: { [ASSERTION_HEADER]: await assertionFor(asUser(), { service: 'admin', method: 'GET', path: '/internal/admin-users/match' }) },
      });
      expect(res.status).toBe(404);
    });
  });
});
