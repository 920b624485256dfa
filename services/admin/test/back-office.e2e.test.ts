import { connect, type ChannelModel } from 'amqplib';
import { SYSTEM_CONFIG_DEFAULTS, type ServiceName } from '@market/contracts';
import { parseEvent, producerExchange } from '@market/shared/events';
import { assertionFor } from '@market/shared/testing';
import { api, startStack, type Stack } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { eventually, loginToken, newAdmin, uniqueUsername, type Client } from './helpers';

// what the migration seeds must be what services fall back on until admin answers
const DEFAULTS = SYSTEM_CONFIG_DEFAULTS;

describe('back office: configs, audit log, dashboard, internal routes', () => {
  let stack: Stack;
  let client: Client;
  let token: string;
  let adminId: string;
  let amqp: ChannelModel;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin'] });
    client = api(stack.url);
    token = await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD);
    adminId = (await client.get('/api/admin/me', token)).body.id;
    amqp = await connect(String(stack.env.AMQP_URL));
  });
  afterAll(async () => {
    await amqp.close();
    await stack.stop();
  });

  const internal = async (path: string, caller: ServiceName = 'catalog') =>
    api(stack.services.admin!.url).get(path, undefined, {
      'x-internal-assertion': await assertionFor({ kind: 'service', sub: caller, ip: null }, { service: 'admin', method: 'GET', path: path.split('?')[0]! }),
    });

  describe('system configs', () => {
    it('lists every docs/rules.md §9 key with its default, a description, and no author yet', async () => {
      const res = await client.get('/api/admin/system-configs', token);
      expect(res.status).toBe(200);
      const byKey = Object.fromEntries(res.body.items.map((i: { key: string }) => [i.key, i]));
      for (const [key, value] of Object.entries(DEFAULTS)) {
        expect(byKey[key]).toEqual({ key, value, description: expect.any(String), updated_at: null, updated_by: null });
        expect(byKey[key].description.length).toBeGreaterThan(10);
      }
    });

    it('refuses a value its key does not allow with 400 and the reason', async () => {
      for (const value of [0, 43_201, 1.5, '15', null, [15], { minutes: 15 }]) {
        const res = await client.put('/api/admin/system-configs/order.payment_timeout_minutes', { value }, token);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.errors[0].path).toBe('value');
      }
      const fee = await client.put('/api/admin/system-configs/platform.commission_rate_bps', { value: 5001 }, token);
      expect(fee.status).toBe(400);
      const missing = await client.put('/api/admin/system-configs/platform.commission_rate_bps', {}, token);
      expect(missing.status).toBe(400);
      const list = await client.get('/api/admin/system-configs', token);
      expect(list.body.items.find((i: { key: string }) => i.key === 'order.payment_timeout_minutes').value).toBe(15);
    });

    it('answers 404 for an unknown key', async () => {
      const res = await client.put('/api/admin/system-configs/order.no_such_key', { value: 10 }, token);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect((await client.put('/api/admin/system-configs/constructor', { value: 10 }, token)).status).toBe(404);
    });

    it('changes a value, publishes system_config.changed, records an audit entry, and serves it internally', async () => {
      const channel = await amqp.createChannel();
      const { queue } = await channel.assertQueue('', { exclusive: true });
      await channel.bindQueue(queue, producerExchange(String(stack.env.EVENTS_EXCHANGE), 'admin'), 'system_config.changed');
      const received: any[] = [];
      await channel.consume(queue, (msg) => msg && received.push(JSON.parse(msg.content.toString())), { noAck: true });

      const res = await client.put('/api/admin/system-configs/order.payment_timeout_minutes', { value: 20 }, token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        key: 'order.payment_timeout_minutes',
        value: 20,
        description: expect.any(String),
        updated_at: expect.stringMatching(/Z$/),
        updated_by: adminId,
      });

      const event = await eventually(async () => received.find((e) => e.data.key === 'order.payment_timeout_minutes'));
      expect(event).toMatchObject({ type: 'system_config.changed', producer: 'admin', data: { value: 20, updated_by: adminId, updated_at: res.body.updated_at } });
      await channel.close();

      const entry = await eventually(async () => {
        const page = await client.get('/api/admin/audit-logs?action=system_config.update', token);
        return page.body.items.find((e: { biz_id: string; detail: { value: number } }) => e.biz_id === 'order.payment_timeout_minutes' && e.detail.value === 20);
      });
      expect(entry).toMatchObject({ actor_type: 'admin', actor_id: adminId, biz_type: 'system_config', result: 'success', detail: { previous_value: 15, value: 20 } });

      const values = await internal('/internal/system-configs', 'orders');
      expect(values.status).toBe(200);
      // with the change time, so a service keeping a copy keeps the newest (ADR 0052)
      expect(values.body.items).toContainEqual({ key: 'order.payment_timeout_minutes', value: 20, updated_at: res.body.updated_at });
      expect(values.body.items).toContainEqual({ key: 'order.receive_timeout_minutes', value: DEFAULTS['order.receive_timeout_minutes'], updated_at: null });
      expect(values.body.items).toHaveLength(Object.keys(DEFAULTS).length);
    });

    it('accepts an unchanged value', async () => {
      const first = await client.put('/api/admin/system-configs/platform.commission_rate_bps', { value: 500 }, token);
      expect(first.status).toBe(200);
      expect(first.body.value).toBe(500);
      expect(first.body.updated_by).toBe(adminId);
    });

    it('two admins changing one key at once both succeed and the last write is what everyone reads', async () => {
      const other = await newAdmin(stack);
      const otherToken = await loginToken(client, other.username, other.password);
      const results = await Promise.all([
        client.put('/api/admin/system-configs/order.handoff_timeout_minutes', { value: 45 }, token),
        client.put('/api/admin/system-configs/order.handoff_timeout_minutes', { value: 60 }, otherToken),
      ]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      // however close together, two changes never share a change time: services keep the later one (ADR 0052)
      expect(results[0]!.body.updated_at).not.toBe(results[1]!.body.updated_at);
      const list = await client.get('/api/admin/system-configs', token);
      const row = list.body.items.find((i: { key: string }) => i.key === 'order.handoff_timeout_minutes');
      const last = results.map((r) => r.body).sort((a, b) => a.updated_at.localeCompare(b.updated_at)).pop();
      expect(row).toEqual(last);
      const [{ count }] = await stack.services.admin!.ctx.db.query(
        `SELECT count(*)::int AS count FROM outbox WHERE type = 'system_config.changed' AND payload->'data'->>'key' = 'order.handoff_timeout_minutes'`,
      );
      expect(count).toBe(2);
    });
  });

  describe('audit log', () => {
    const publishAudit = async (entries: Array<{ actor_id: string; action: string; biz_type: string }>) => {
      const ctx = stack.services.admin!.ctx;
      await ctx.db.transaction(async (manager) => {
        for (const e of entries) {
          await ctx.events.publish(manager, 'audit.recorded', {
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
        }
      });
    };

    it('stores audit.recorded from any producer and filters by actor, action and biz type, newest first', async () => {
      const actor = uniqueUsername('actor');
      await publishAudit([
        { actor_id: actor, action: 'listing.create', biz_type: 'listing' },
        { actor_id: actor, action: 'listing.update', biz_type: 'listing' },
        { actor_id: actor, action: 'order.create', biz_type: 'order' },
      ]);
      const all = await eventually(async () => {
        const res = await client.get(`/api/admin/audit-logs?actor_id=${actor}`, token);
        return res.body.items.length === 3 ? res.body : undefined;
      });
      expect(all.items.map((e: { action: string }) => e.action)).toEqual(['order.create', 'listing.update', 'listing.create']);
      expect(all.items[0]).toMatchObject({ actor_type: 'user', actor_id: actor, ip: '10.0.0.1', detail: {}, result: 'success' });

      const listings = await client.get(`/api/admin/audit-logs?actor_id=${actor}&biz_type=listing`, token);
      expect(listings.body.items.map((e: { action: string }) => e.action)).toEqual(['listing.update', 'listing.create']);
      const one = await client.get(`/api/admin/audit-logs?actor_id=${actor}&biz_type=listing&action=listing.create`, token);
      expect(one.body.items).toHaveLength(1);
      const none = await client.get(`/api/admin/audit-logs?actor_id=${actor}&action=no.such`, token);
      expect(none.body).toEqual({ items: [], next_cursor: null });
    });

    it('pages with a cursor through every entry exactly once', async () => {
      const actor = uniqueUsername('pager');
      await publishAudit(Array.from({ length: 7 }, (_, i) => ({ actor_id: actor, action: `step.${i}`, biz_type: 'paging' })));
      await eventually(async () => {
        const res = await client.get(`/api/admin/audit-logs?actor_id=${actor}&limit=100`, token);
        return res.body.items.length === 7 ? true : undefined;
      });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `/api/admin/audit-logs?actor_id=${actor}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await client.get(query, token);
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((e: { action: string }) => e.action));
        cursor = res.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(['step.6', 'step.5', 'step.4', 'step.3', 'step.2', 'step.1', 'step.0']);
    });

    it('refuses a bad cursor or limit with 400', async () => {
      expect((await client.get('/api/admin/audit-logs?cursor=garbage', token)).status).toBe(400);
      const forged = Buffer.from(JSON.stringify({ v: 'not a date', id: 'x' })).toString('base64url');
      expect((await client.get(`/api/admin/audit-logs?cursor=${forged}`, token)).status).toBe(400);
      expect((await client.get('/api/admin/audit-logs?limit=0', token)).status).toBe(400);
      expect((await client.get('/api/admin/audit-logs?limit=101', token)).status).toBe(400);
      expect((await client.get('/api/admin/audit-logs?sort=asc', token)).status).toBe(400);
    });

    it('stores an event handled twice once, even past the inbox', async () => {
      const actor = uniqueUsername('redeliver');
      await publishAudit([{ actor_id: actor, action: 'redelivered.once', biz_type: 'test' }]);
      const service = stack.services.admin!;
      const [{ payload }] = await service.ctx.db.query(`SELECT payload FROM outbox WHERE payload->'data'->>'actor_id' = $1`, [actor]);
      await eventually(async () => {
        const res = await client.get(`/api/admin/audit-logs?actor_id=${actor}`, token);
        return res.body.items.length === 1 ? true : undefined;
      });
      await service.ctx.db.query(`DELETE FROM inbox WHERE event_id = $1`, [payload.id]);
      await service.consumer.handle(parseEvent(payload));
      const res = await client.get(`/api/admin/audit-logs?actor_id=${actor}`, token);
      expect(res.body.items).toHaveLength(1);
      expect(res.body.items[0].id).toBe(payload.id);
    });
  });

  describe('dashboard', () => {
    it('still answers while every other service is down: its own admin count, every other figure null and the services named', async () => {
      const res = await client.get('/api/admin/dashboard', token);
      expect(res.status).toBe(200);
      expect(res.body.admins_total).toBeGreaterThanOrEqual(1);
      expect(res.body.unavailable).toEqual(['identity', 'catalog', 'orders', 'wallet']);
      const { admins_total: _admins, unavailable: _unavailable, last_30_days: days, ...figures } = res.body;
      expect(Object.keys(figures)).toHaveLength(14);
      expect(Object.entries(figures).filter(([, value]) => value !== null)).toEqual([]);
      expect(days).toHaveLength(30);
      for (const { date: _date, ...day } of days) expect(Object.values(day)).toEqual([null, null, null, null, null]);
      expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    });
  });

  describe('GET /internal/admin-users/match', () => {
    it('matches the exact username first, then a nickname exactly one active admin has', async () => {
      const nick = uniqueUsername('nick');
      const byUsername = await newAdmin(stack, { nickname: 'Some Nickname' });
      const holder = await newAdmin(stack, { nickname: byUsername.username });
      const unique = await newAdmin(stack, { nickname: nick });

      const first = await internal(`/internal/admin-users/match?name=${byUsername.username}`);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ id: byUsername.id, username: byUsername.username, nickname: 'Some Nickname' });
      expect(holder.id).not.toBe(first.body.id);

      const second = await internal(`/internal/admin-users/match?name=${encodeURIComponent(nick)}`);
      expect(second.body).toEqual({ id: unique.id, username: unique.username, nickname: nick });
    });

    it('matches no one for a nickname two active admins share, or for a case-different name', async () => {
      const shared = `shared-${uniqueUsername()}`;
      const a = await newAdmin(stack, { nickname: shared });
      await newAdmin(stack, { nickname: shared });
      const res = await internal(`/internal/admin-users/match?name=${encodeURIComponent(shared)}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect((await internal(`/internal/admin-users/match?name=${a.username.toUpperCase()}`)).status).toBe(404);
    });

    it('ignores disabled admins, so a shared nickname with one disabled holder matches the active one', async () => {
      const shared = `half-${uniqueUsername()}`;
      const active = await newAdmin(stack, { nickname: shared });
      const disabled = await newAdmin(stack, { nickname: shared });
      await stack.services.admin!.ctx.db.query(`UPDATE admin_users SET status = 'disabled' WHERE id = $1`, [disabled.id]);
      expect((await internal(`/internal/admin-users/match?name=${encodeURIComponent(shared)}`)).body.id).toBe(active.id);
      expect((await internal(`/internal/admin-users/match?name=${disabled.username}`)).status).toBe(404);
    });

    it('needs a name, and is not reachable through the gateway or with a user assertion', async () => {
      expect((await internal('/internal/admin-users/match')).status).toBe(400);
      expect((await client.get('/internal/admin-users/match?name=admin')).status).toBe(404);
      const asUser = await api(stack.services.admin!.url).get('/internal/admin-users/match?name=admin', undefined, {
        'x-internal-assertion': await assertionFor({ kind: 'user', sub: 'u', sid: 's', ip: null }, { service: 'admin', method: 'GET', path: '/internal/admin-users/match' }),
      });
      expect(asUser.status).toBe(404);
    });
  });
});
