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
import { ASSERTION_HEADER, type AdminIdentity } from '@market/shared/auth';
import { buildEvent } from '@market/shared/events';
import { assertionFor } from '@market/shared/testing';
import { answer, asAdmin, asUser, eventually, refuse, startComponent, type Component } from '@market/testkit';
import { storeAuditEntry } from '../../src/events/store-audit-entry';
import { newAdmin, uniqueUsername } from '../helpers';

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

    it('links the entries one transaction stores (a batch of the inbox) to each other, reading each chain’s head once', async () => {
      const actor = uniqueUsername('batch');
      const events = (['orders', 'orders', 'catalog', 'orders'] as const).map((producer, i) =>
        buildEvent('audit.recorded', entry({ actor_id: actor, action: `batched.${i}`, biz_type: 'test' }), producer, null),
      );
      const sent: string[] = [];
      await admin.service.ctx.db.transaction(async (tx) => {
        // the transaction itself, each statement's text noted on the way
        const noted = { query: (sql: string, params?: unknown[]) => (sent.push(sql), tx.query(sql, params)) };
        // the second copy of an entry already stored in the batch moves no chain
        for (const event of [...events, events[1]!]) await storeAuditEntry(event, noted);
      });
      expect(sent.filter((sql) => sql.includes('INSERT INTO audit_chains'))).toHaveLength(2);
      expect(sent.filter((sql) => sql.includes('INSERT INTO audit_logs'))).toHaveLength(5);
      const rows: Array<{ id: string; producer: string; chain_seq: string; prev_hash: string; hash: string }> = await admin.service.ctx.db.query(
        `SELECT id, producer, chain_seq, prev_hash, hash FROM audit_logs WHERE actor_id = $1 ORDER BY producer, chain_seq`,
        [actor],
      );
      const ordersChain = rows.filter((r) => r.producer === 'orders');
      expect(ordersChain.map((r) => r.id)).toEqual([events[0]!.id, events[1]!.id, events[3]!.id]);
      ordersChain.slice(1).forEach((row, i) => {
        expect(BigInt(row.chain_seq)).toBe(BigInt(ordersChain[i]!.chain_seq) + 1n);
        expect(row.prev_hash).toBe(ordersChain[i]!.hash);
      });
      const [head] = await admin.service.ctx.db.query(`SELECT seq, head_hash FROM audit_chains WHERE chain = 'orders'`);
      expect(head).toEqual({ seq: ordersChain[2]!.chain_seq, head_hash: ordersChain[2]!.hash });
      const verified = await admin.ok(verifyAuditLogs, { as: root });
      expect(verified.breaks).toEqual([]);
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
