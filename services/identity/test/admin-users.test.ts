import { api, newAdmin, startStack, type Caller, type Stack } from '@market/testkit';
import { v7 as uuidv7 } from 'uuid';
import { forgetResendInterval, from, logIn, newIp, newPhone, outboxEvents, sendCode, internalClient, type Client } from './helpers';

let stack: Stack;
let client: Client;
let backOffice: Caller;

beforeAll(async () => {
  // As startIdentityStack, with the admin service for real back-office sessions.
  stack = await startStack({ services: ['identity', 'admin'], env: { TRUST_PROXY: 'true' } });
  client = api(stack.url);
  backOffice = await newAdmin(stack, ['customer_service']);
});
const adminToken = () => backOffice.token;
afterAll(() => stack.stop());

describe('back office: users, freeze and unfreeze', () => {
  let adminId: string;
  let admin: string;
  beforeAll(() => {
    ({ id: adminId, token: admin } = backOffice);
  });

  const freeze = (id: string, reason = 'fraud reports') => client.post(`/api/admin/users/${id}/freeze`, { reason }, admin);
  const unfreeze = (id: string) => client.post(`/api/admin/users/${id}/unfreeze`, {}, admin);

  it('lists users newest first in cursor pages, with filters', async () => {
    const phones = [newPhone(), newPhone(), newPhone()];
    const ids: string[] = [];
    for (const phone of phones) ids.push((await logIn(client, phone)).user.id);

    const firstPage = await client.get('/api/admin/users?limit=2', admin);
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.items.map((u: { id: string }) => u.id)).toEqual([ids[2], ids[1]]);
    expect(firstPage.body.items[0]).toMatchObject({ frozen: false, frozen_reason: null, frozen_at: null, realname_status: 'unverified' });
    expect(firstPage.body.next_cursor).toEqual(expect.any(String));
    const secondPage = await client.get(`/api/admin/users?limit=2&cursor=${firstPage.body.next_cursor}`, admin);
    expect(secondPage.body.items[0].id).toBe(ids[0]);

    const byPhone = await client.get(`/api/admin/users?phone=%2B86${phones[1]}`, admin);
    expect(byPhone.body).toEqual({ items: [expect.objectContaining({ id: ids[1] })], next_cursor: null });

    expect((await freeze(ids[0]!)).status).toBe(200);
    const frozen = await client.get('/api/admin/users?frozen=true', admin);
    expect(frozen.body.items.map((u: { id: string }) => u.id)).toEqual([ids[0]]);
    const notFrozen = await client.get('/api/admin/users?frozen=false&limit=100', admin);
    expect(notFrozen.body.items.map((u: { id: string }) => u.id)).not.toContain(ids[0]);
    const unverified = await client.get('/api/admin/users?realname_status=unverified&limit=100', admin);
    expect(unverified.body.items.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining(ids));
    expect((await client.get('/api/admin/users?realname_status=verified', admin)).body.items).toEqual([]);
    // the people of a page by id, in one read (an unknown id is simply not there)
    const unknown = '00000000-0000-4000-8000-000000000000';
    const byIds = await client.get(`/api/admin/users?ids=${ids[0]},${ids[2]!.toUpperCase()},${unknown}`, admin);
    expect(byIds.status).toBe(200);
    expect(byIds.body.items.map((u: { id: string; phone_masked: string }) => [u.id, u.phone_masked])).toEqual([
      [ids[2], expect.stringContaining('****')],
      [ids[0], expect.stringContaining('****')],
    ]);
  });

  it('refuses bad list queries with 400', async () => {
    const many = Array.from({ length: 101 }, () => '00000000-0000-4000-8000-000000000000').join(',');
    for (const q of ['limit=0', 'limit=101', 'frozen=yes', 'realname_status=maybe', 'phone=123', 'cursor=garbage', 'sort=name', 'ids=', 'ids=not-an-id', `ids=${many}`]) {
      const res = await client.get(`/api/admin/users?${q}`, admin);
      expect([q, res.status]).toEqual([q, 400]);
    }
    const forged = Buffer.from(JSON.stringify({ v: 'not a date', id: 'x' })).toString('base64url');
    expect((await client.get(`/api/admin/users?cursor=${forged}`, admin)).status).toBe(400);
  });

  it('freezing stops every token of the user on the next request and refuses its login and new codes with 403', async () => {
    const phone = newPhone();
    const session = await logIn(client, phone);
    expect((await client.get('/api/me', session.access_token)).status).toBe(200);
    // A code the user got before the freeze.
    await forgetResendInterval(stack, phone);
    const ip = newIp();
    const code = await sendCode(client, phone, ip);

    const res = await freeze(session.user.id, 'chargeback abuse');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: session.user.id, frozen: true, frozen_reason: 'chargeback abuse', frozen_at: expect.stringMatching(/Z$/) });

    const me = await client.get('/api/me', session.access_token);
    expect(me.status).toBe(403);
    expect(me.body.code).toBe('USER_FROZEN');
    const refreshed = await client.post('/api/auth/refresh', { refresh_token: session.refresh_token });
    expect(refreshed.status).toBe(403);
    expect(refreshed.body.code).toBe('USER_FROZEN');

    await forgetResendInterval(stack, phone);
    const send = await client.post('/api/auth/sms/send', { phone }, undefined, from(ip));
    expect(send.status).toBe(403);
    expect(send.body.code).toBe('USER_FROZEN');
    const login = await client.post('/api/auth/sms/login', { phone, code }, undefined, from(ip));
    expect(login.status).toBe(403);
    expect(login.body.code).toBe('USER_FROZEN');

    const frozenEvent = (await outboxEvents(stack, 'user.frozen')).find((e) => e.data.user_id === session.user.id);
    expect(frozenEvent?.data).toMatchObject({ reason: 'chargeback abuse', frozen_by: adminId });
    const audits = (await outboxEvents(stack, 'audit.recorded')).map((e) => e.data);
    expect(audits.find((d) => d.action === 'user.freeze' && d.biz_id === session.user.id)).toMatchObject({
      actor_type: 'admin',
      actor_id: adminId,
      detail: { reason: 'chargeback abuse' },
      result: 'success',
    });
    expect(audits.find((d) => d.action === 'auth.login' && d.detail.reason === 'user_frozen')).toMatchObject({ result: 'failure' });
  });

  it('unfreezing lets the user log in again while the tokens from before stay dead', async () => {
    const phone = newPhone();
    const before = await logIn(client, phone);
    await freeze(before.user.id);
    const res = await unfreeze(before.user.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ frozen: false, frozen_reason: null, frozen_at: null });

    const old = await client.get('/api/me', before.access_token);
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('TOKEN_REVOKED');
    expect((await client.post('/api/auth/refresh', { refresh_token: before.refresh_token })).body.code).toBe('TOKEN_REVOKED');
    await forgetResendInterval(stack, phone);
    const after = await logIn(client, phone);
    expect((await client.get('/api/me', after.access_token)).body).toMatchObject({ id: before.user.id, frozen: false });

    const event = (await outboxEvents(stack, 'user.unfrozen')).find((e) => e.data.user_id === before.user.id);
    expect(event?.data.unfrozen_by).toBe(adminId);
    const audit = (await outboxEvents(stack, 'audit.recorded')).map((e) => e.data).find((d) => d.action === 'user.unfreeze' && d.biz_id === before.user.id);
    expect(audit).toMatchObject({ actor_type: 'admin', actor_id: adminId });
  });

  it('refuses moves from the wrong state with 409, unknown or malformed ids with 404, and a missing reason with 400', async () => {
    const { user } = await logIn(client);
    expect((await unfreeze(user.id)).body.code).toBe('INVALID_STATE');
    await freeze(user.id);
    const twice = await freeze(user.id);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('INVALID_STATE');
    expect((await freeze(uuidv7())).status).toBe(404);
    expect((await freeze('not-a-uuid')).status).toBe(404);
    expect((await unfreeze("1' OR '1'='1")).status).toBe(404);
    expect((await client.post(`/api/admin/users/${user.id}/unfreeze`, { reason: 'x' }, admin)).status).toBe(400);
    expect((await client.post(`/api/admin/users/${user.id}/freeze`, { reason: '  ' }, admin)).status).toBe(400);
  });

  it('lets exactly one of two admins freezing the same user at once win', async () => {
    const { user } = await logIn(client);
    const results = await Promise.all([freeze(user.id, 'first'), freeze(user.id, 'second')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await outboxEvents(stack, 'user.frozen')).filter((e) => e.data.user_id === user.id)).toHaveLength(1);
  });

  it('refuses user tokens and no token on admin routes', async () => {
    const { access_token, user } = await logIn(client);
    expect((await client.get('/api/admin/users')).status).toBe(401);
    expect((await client.post(`/api/admin/users/${user.id}/freeze`, { reason: 'self' }, access_token)).status).toBe(401);
  });
});

describe('internal routes for other services', () => {
  it('creates one publisher user per admin, even when asked several times at once', async () => {
    const internal = internalClient(stack);
    const admin_id = uuidv7();
    const results = await Promise.all(
      Array.from({ length: 3 }, () => internal.post('/internal/users/publisher', { admin_id, admin_username: 'ops_li' })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const ids = new Set(results.map((r) => r.body.user_id));
    expect(ids.size).toBe(1);
    const [userId] = [...ids];
    const listed = await client.get('/api/admin/users?limit=100', adminToken());
    expect(listed.body.items.find((u: { id: string }) => u.id === userId)).toMatchObject({ nickname: 'ops_li', phone_masked: '' });
    expect((await outboxEvents(stack, 'user.registered')).filter((e) => e.data.user_id === userId)).toHaveLength(1);

    const other = await internal.post('/internal/users/publisher', { admin_id: uuidv7(), admin_username: 'ops_li' });
    expect(other.body.user_id).not.toBe(userId);
  });

  it('validates the publisher request', async () => {
    const internal = internalClient(stack);
    for (const body of [{}, { admin_id: 'x', admin_username: 'a' }, { admin_id: uuidv7(), admin_username: '' }, { admin_id: uuidv7(), admin_username: 'a', extra: 1 }]) {
      expect((await internal.post('/internal/users/publisher', body)).status).toBe(400);
    }
  });

  it('counts ordinary phone users: total, registered today (UTC), frozen and per UTC day', async () => {
    const internal = internalClient(stack, 'admin');
    const before = (await internal.get('/internal/users/stats')).body;
    const a = await logIn(client);
    await logIn(client);
    await client.post(`/api/admin/users/${a.user.id}/freeze`, { reason: 'test' }, adminToken());
    await internal.post('/internal/users/publisher', { admin_id: uuidv7(), admin_username: 'not_counted' });
    const after = await internal.get('/internal/users/stats');
    expect(after.status).toBe(200);
    expect(after.body).toEqual({
      users_total: before.users_total + 2,
      users_today: before.users_today + 2,
      users_frozen: before.users_frozen + 1,
      daily: expect.any(Array),
    });
    // the registrations per UTC day: today's grows by the two phone users, the other days stay as they were
    const today = new Date().toISOString().slice(0, 10);
    const day = (body: { daily: Array<{ day: string; new_users: number }> }, on: (d: string) => boolean) => body.daily.filter((d) => on(d.day));
    expect(day(after.body, (d) => d === today)).toEqual([{ day: today, new_users: (day(before, (d) => d === today)[0]?.new_users ?? 0) + 2 }]);
    expect(day(after.body, (d) => d !== today)).toEqual(day(before, (d) => d !== today));
  });

  it('tells orders whether a user may rent: frozen and real-name status; unknown or malformed ids are 404', async () => {
    const internal = internalClient(stack, 'orders');
    const user = await logIn(client);
    expect((await internal.get(`/internal/users/${user.user.id}/standing`)).body).toEqual({ user_id: user.user.id, frozen: false, realname_status: 'unverified' });
    await client.post('/api/realname/start', { real_name: '张三', id_number: '11010519491231002X' }, user.access_token);
    await client.post(`/api/admin/users/${user.user.id}/freeze`, { reason: 'test' }, adminToken());
    expect((await internal.get(`/internal/users/${user.user.id}/standing`)).body).toEqual({ user_id: user.user.id, frozen: true, realname_status: 'verified' });
    expect((await internal.get(`/internal/users/${uuidv7()}/standing`)).status).toBe(404);
    expect((await internal.get('/internal/users/nope/standing')).status).toBe(404);
  });

  it('is reachable only with a service assertion', async () => {
    const direct = api(stack.services.identity!.url);
    expect((await direct.get('/internal/users/stats')).status).toBe(401);
    expect((await client.get('/internal/users/stats')).status).toBe(404);
  });
});
