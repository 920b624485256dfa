import {
  adminFreezeUser,
  adminListUsers,
  adminUnfreezeUser,
  ensurePublisherUser,
  refreshToken,
  startRealname,
  userStanding,
  userStats,
} from '@market/contracts';
import { asAdmin, asUser, eventually, startComponent, type Component } from '@market/testkit';
import { v7 as uuidv7 } from 'uuid';
import { restoreRevocations } from '../../src/application/restore-revocations';
import { forgetResendInterval, newIp, newPhone } from '../helpers';
import { at, smsLogin } from './support';

describe('identity alone: the back office’s users, freeze and unfreeze, and the internal routes', () => {
  let identity: Component;
  const backOffice = asAdmin();

  beforeAll(async () => {
    identity = await startComponent('identity');
  });
  afterEach(() => identity.verify());
  afterAll(() => identity?.stop());

  const { send, login, sendCode, logIn, outboxEvents } = smsLogin(() => identity);
  const list = (query: Record<string, string | number | boolean>) => identity.call(adminListUsers, { as: backOffice, query });
  const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((u) => u.id);
  const freeze = (id: string, reason = 'fraud reports', as = backOffice) => identity.call(adminFreezeUser, { params: { id }, body: { reason }, as });
  const unfreeze = (id: string, body: unknown = {}) => identity.call(adminUnfreezeUser, { params: { id }, body, as: backOffice });

  describe('users, freeze and unfreeze', () => {
    it('lists users newest first in cursor pages, with filters', async () => {
      const phones = [newPhone(), newPhone(), newPhone()];
      const made: string[] = [];
      for (const phone of phones) made.push((await logIn(phone)).user.id);

      const firstPage = await list({ limit: 2 });
      expect(firstPage.status).toBe(200);
      expect(ids(firstPage)).toEqual([made[2], made[1]]);
      expect(firstPage.body.items[0]).toMatchObject({ frozen: false, frozen_reason: null, frozen_at: null, realname_status: 'unverified' });
      expect(firstPage.body.next_cursor).toEqual(expect.any(String));
      expect(ids(await list({ limit: 2, cursor: firstPage.body.next_cursor }))[0]).toBe(made[0]);

      expect((await list({ phone: `+86${phones[1]}` })).body).toEqual({ items: [expect.objectContaining({ id: made[1] })], next_cursor: null });

      expect((await freeze(made[0]!)).status).toBe(200);
      expect(ids(await list({ frozen: true }))).toEqual([made[0]]);
      expect(ids(await list({ frozen: false, limit: 100 }))).not.toContain(made[0]);
      expect(ids(await list({ realname_status: 'unverified', limit: 100 }))).toEqual(expect.arrayContaining(made));
      expect((await list({ realname_status: 'verified' })).body.items).toEqual([]);

      // the people of a page by id, in one read (an unknown id is simply not there)
      const unknown = '00000000-0000-4000-8000-000000000000';
      const byIds = await list({ ids: `${made[0]},${made[2]!.toUpperCase()},${unknown}` });
      expect(byIds.status).toBe(200);
      expect(byIds.body.items.map((u: { id: string; phone_masked: string }) => [u.id, u.phone_masked])).toEqual([
        [made[2], expect.stringContaining('****')],
        [made[0], expect.stringContaining('****')],
      ]);
    });

    it('refuses bad list queries with 400', async () => {
      const many = Array.from({ length: 101 }, () => '00000000-0000-4000-8000-000000000000').join(',');
      for (const q of ['limit=0', 'limit=101', 'frozen=yes', 'realname_status=maybe', 'phone=123', 'cursor=garbage', 'sort=name', 'ids=', 'ids=not-an-id', `ids=${many}`]) {
        const [name, value] = q.split('=') as [string, string];
        expect([q, (await list({ [name]: value })).status]).toEqual([q, 400]);
      }
      const forged = Buffer.from(JSON.stringify({ v: 'not a date', id: 'x' })).toString('base64url');
      expect((await list({ cursor: forged })).status).toBe(400);
    });

    it('freezing refuses the user’s refresh, login and new codes with 403, publishing user.frozen and an audit entry', async () => {
      const phone = newPhone();
      const session = await logIn(phone);
      // A code the user got before the freeze.
      await forgetResendInterval(identity, phone);
      const ip = newIp();
      const code = await sendCode(phone, ip);

      const res = await freeze(session.user.id, 'chargeback abuse');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: session.user.id, frozen: true, frozen_reason: 'chargeback abuse', frozen_at: expect.stringMatching(/Z$/) });

      const refreshed = await identity.call(refreshToken, { body: { refresh_token: session.refresh_token }, as: at() });
      expect([refreshed.status, refreshed.body.code]).toEqual([403, 'USER_FROZEN']);
      await forgetResendInterval(identity, phone);
      const sent = await send({ phone }, ip);
      expect([sent.status, sent.body.code]).toEqual([403, 'USER_FROZEN']);
      const loggedIn = await login({ phone, code }, ip);
      expect([loggedIn.status, loggedIn.body.code]).toEqual([403, 'USER_FROZEN']);

      const frozenEvent = (await outboxEvents('user.frozen')).find((e) => e.data.user_id === session.user.id);
      expect(frozenEvent?.data).toMatchObject({ reason: 'chargeback abuse', frozen_by: backOffice.sub });
      const audits = (await outboxEvents('audit.recorded')).map((e) => e.data);
      expect(audits.find((d) => d.action === 'user.freeze' && d.biz_id === session.user.id)).toMatchObject({
        actor_type: 'admin',
        actor_id: backOffice.sub,
        detail: { reason: 'chargeback abuse' },
        result: 'success',
      });
      expect(audits.find((d) => d.action === 'auth.login' && d.detail.reason === 'user_frozen')).toMatchObject({ result: 'failure' });
    });

    it('unfreezing lets the user log in again, publishing user.unfrozen and an audit entry', async () => {
      const phone = newPhone();
      const before = await logIn(phone);
      await freeze(before.user.id);
      const res = await unfreeze(before.user.id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ frozen: false, frozen_reason: null, frozen_at: null });
      await forgetResendInterval(identity, phone);
      expect((await logIn(phone)).user.id).toBe(before.user.id);

      const event = (await outboxEvents('user.unfrozen')).find((e) => e.data.user_id === before.user.id);
      expect(event?.data.unfrozen_by).toBe(backOffice.sub);
      const audit = (await outboxEvents('audit.recorded')).map((e) => e.data).find((d) => d.action === 'user.unfreeze' && d.biz_id === before.user.id);
      expect(audit).toMatchObject({ actor_type: 'admin', actor_id: backOffice.sub });
    });

    it('refuses moves from the wrong state with 409, unknown or malformed ids with 404, and a missing reason with 400', async () => {
      const { user } = await logIn();
      expect((await unfreeze(user.id)).body.code).toBe('INVALID_STATE');
      await freeze(user.id);
      const twice = await freeze(user.id);
      expect([twice.status, twice.body.code]).toEqual([409, 'INVALID_STATE']);
      expect((await freeze(uuidv7())).status).toBe(404);
      expect((await freeze('not-a-uuid')).status).toBe(404);
      expect((await unfreeze("1' OR '1'='1")).status).toBe(404);
      expect((await unfreeze(user.id, { reason: 'x' })).status).toBe(400);
      expect((await freeze(user.id, '  ')).status).toBe(400);
    });

    it('lets exactly one of two admins freezing the same user at once win', async () => {
      const { user } = await logIn();
      const results = await Promise.all([freeze(user.id, 'first'), freeze(user.id, 'second', asAdmin())]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect((await outboxEvents('user.frozen')).filter((e) => e.data.user_id === user.id)).toHaveLength(1);
    });

    it('writes the users’ revocations into Redis again once Redis has lost them, never over an unfreeze under way', async () => {
      const { ctx } = identity.service;
      const deps = {
        db: ctx.db,
        redis: ctx.redis,
        revocations: ctx.revocations,
        marker: ctx.redisKey(`identity:test-revocations-held:${uuidv7()}`),
        accessTokenTtlSeconds: 900,
      };
      const blocked = (id: string) => ctx.revocations.subjectBlocked('user', id);
      const [kept, lifted, loggedOut] = [(await logIn()).user.id, (await logIn()).user.id, (await logIn()).user.id];
      for (const id of [kept, lifted]) expect((await freeze(id)).status).toBe(200);
      // sessions of a user who is not frozen: one ended a minute ago (its access tokens live 14 more
      // minutes), one ended 20 minutes ago (none of its access tokens is live), one still open
      const [recent, old, open] = [uuidv7(), uuidv7(), uuidv7()];
      await ctx.db.query(
        `INSERT INTO sessions (id, user_id, revoked_at, revoked_reason) VALUES
           ($1, $4, now() - interval '1 minute', 'logout'), ($2, $4, now() - interval '20 minutes', 'logout'), ($3, $4, NULL, NULL)`,
        [recent, old, open, loggedOut],
      );
      const sessionKey = (sid: string) => ctx.redisKey(`auth:revoked:user:sid:${sid}`);
      // Redis loses its data: the blocks, and the marker it never had
      await ctx.redis.del([ctx.redisKey(`auth:blocked:user:${kept}`), ctx.redisKey(`auth:blocked:user:${lifted}`)]);
      expect([await blocked(kept), await blocked(lifted)]).toEqual([false, false]);

      // an unfreeze under way, as unfreezeUser runs: the row moved, the block lifted, not yet committed
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      let moved!: () => void;
      const rowMoved = new Promise<void>((resolve) => (moved = resolve));
      const unfreezing = ctx.db.transaction(async (tx) => {
        await tx.query(`UPDATE users SET frozen = false, frozen_reason = NULL, frozen_at = NULL WHERE id = $1`, [lifted]);
        moved();
        await committing;
        await ctx.revocations.unblockSubject('user', lifted);
      });
      await rowMoved;
      const restoring = restoreRevocations(deps);
      // the restore waits on the unfreezing user's row
      await eventually(
        async () => (await ctx.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM users WHERE frozen FOR SHARE%'`))[0].n,
        (n: number) => n === 1,
      );
      commit();
      await unfreezing;
      const written = await restoring;
      expect(written!.blocks).toBeGreaterThanOrEqual(1);
      expect(written!.sessions).toBeGreaterThanOrEqual(1);
      expect([await blocked(kept), await blocked(lifted)]).toEqual([true, false]);
      // the recent session's end is back for what is left of an access token's life, the old one's is not needed
      expect(await ctx.revocations.sessionState('user', loggedOut, recent)).toBe('revoked');
      const left = await ctx.redis.ttl(sessionKey(recent));
      expect(left).toBeGreaterThan(800);
      expect(left).toBeLessThanOrEqual(840);
      expect(await ctx.revocations.sessionState('user', loggedOut, old)).toBe('active');
      expect(await ctx.revocations.sessionState('user', loggedOut, open)).toBe('active');
      // held again: the next check only reads the marker
      expect(await restoreRevocations(deps)).toBeNull();
    });

    it('refuses a user or no caller on the back office’s routes', async () => {
      const { user } = await logIn();
      expect((await identity.call(adminListUsers, { as: at() })).status).toBe(401);
      expect((await identity.call(adminFreezeUser, { params: { id: user.id }, body: { reason: 'self' }, as: asUser(user.id) })).status).toBe(401);
    });
  });

  describe('internal routes for other services', () => {
    it('creates one publisher user per admin, even when asked several times at once', async () => {
      const internal = identity.internalAs('catalog');
      const admin_id = uuidv7();
      const results = await Promise.all(Array.from({ length: 3 }, () => internal.call(ensurePublisherUser, { body: { admin_id, admin_username: 'ops_li' } })));
      const created = new Set(results.map((r) => r.user_id));
      expect(created.size).toBe(1);
      const [userId] = [...created];
      expect((await list({ limit: 100 })).body.items.find((u: { id: string }) => u.id === userId)).toMatchObject({ nickname: 'ops_li', phone_masked: '' });
      expect((await outboxEvents('user.registered')).filter((e) => e.data.user_id === userId)).toHaveLength(1);

      const other = await internal.call(ensurePublisherUser, { body: { admin_id: uuidv7(), admin_username: 'ops_li' } });
      expect(other.user_id).not.toBe(userId);
    });

    it('validates the publisher request', async () => {
      const internal = identity.internalAs('catalog');
      for (const body of [{}, { admin_id: 'x', admin_username: 'a' }, { admin_id: uuidv7(), admin_username: '' }, { admin_id: uuidv7(), admin_username: 'a', extra: 1 }]) {
        await expect(internal.call(ensurePublisherUser, { body: body as never })).rejects.toMatchObject({ status: 400 });
      }
    });

    it('counts ordinary phone users: total, registered today (UTC), frozen and per UTC day', async () => {
      const internal = identity.internalAs('admin');
      const before = await internal.call(userStats);
      const a = await logIn();
      await logIn();
      await freeze(a.user.id, 'test');
      await identity.internalAs('catalog').call(ensurePublisherUser, { body: { admin_id: uuidv7(), admin_username: 'not_counted' } });
      const after = await internal.call(userStats);
      expect(after).toEqual({
        users_total: before.users_total + 2,
        users_today: before.users_today + 2,
        users_frozen: before.users_frozen + 1,
        daily: expect.any(Array),
      });
      // the registrations per UTC day: today's grows by the two phone users, the other days stay as they were
      const today = new Date().toISOString().slice(0, 10);
      const day = (body: { daily: Array<{ day: string; new_users: number }> }, on: (d: string) => boolean) => body.daily.filter((d) => on(d.day));
      expect(day(after, (d) => d === today)).toEqual([{ day: today, new_users: (day(before, (d) => d === today)[0]?.new_users ?? 0) + 2 }]);
      expect(day(after, (d) => d !== today)).toEqual(day(before, (d) => d !== today));
    });

    it('tells orders whether a user may rent: frozen and real-name status; unknown or malformed ids are 404', async () => {
      const internal = identity.internalAs('orders');
      const { user } = await logIn();
      expect(await internal.call(userStanding, { params: { id: user.id } })).toEqual({ user_id: user.id, frozen: false, realname_status: 'unverified' });
      await identity.ok(startRealname, { body: { real_name: '张三', id_number: '11010519491231002X' }, as: asUser(user.id) });
      await freeze(user.id, 'test');
      expect(await internal.call(userStanding, { params: { id: user.id } })).toEqual({ user_id: user.id, frozen: true, realname_status: 'verified' });
      await expect(internal.call(userStanding, { params: { id: uuidv7() } })).rejects.toMatchObject({ status: 404 });
      await expect(internal.call(userStanding, { params: { id: 'nope' } })).rejects.toMatchObject({ status: 404 });
    });

    it('is reachable only with a service assertion', async () => {
      expect((await fetch(`${identity.url}/internal/users/stats`)).status).toBe(401);
    });
  });
});
