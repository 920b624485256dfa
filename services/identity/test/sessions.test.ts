import { api, newAdmin, type Caller, type Stack } from '@market/testkit';
import { purgeExpiredRefreshTokens } from '../src/persistence/session-repository';
import { adminToken, forgetResendInterval, foreignUserToken, logIn, newPhone, outboxEvents, startIdentityStack, type Client } from './helpers';

/**
 * The sessions a user's tokens carry, which the gateway checks on every request: rotation and reuse of
 * refresh tokens, logout, and a freeze by the back office (the admin service runs for its real
 * sessions). What identity decides alone is in test/component/ (ADR 0058).
 */
describe('sessions: refresh rotation, reuse and logout', () => {
  let stack: Stack;
  let client: Client;
  let backOffice: Caller;

  beforeAll(async () => {
    stack = await startIdentityStack({}, {}, ['identity', 'admin']);
    client = api(stack.url);
    backOffice = await newAdmin(stack, ['customer_service']);
  });
  afterAll(() => stack.stop());

  const refresh = (refresh_token: string) => client.post('/api/auth/refresh', { refresh_token });

  it('rotates the pair on every refresh; the newest access token works', async () => {
    const first = await logIn(client);
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ token_type: 'Bearer', user: { id: first.user.id } });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const third = await refresh(second.body.refresh_token);
    expect(third.status).toBe(200);
    expect((await client.get('/api/me', third.body.access_token)).body.id).toBe(first.user.id);
  });

  it('revokes the whole family when a rotated refresh token is presented again', async () => {
    const first = await logIn(client);
    const second = (await refresh(first.refresh_token)).body;
    expect((await client.get('/api/me', second.access_token)).status).toBe(200);

    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('TOKEN_REVOKED');

    const current = await refresh(second.refresh_token);
    expect(current.status).toBe(401);
    expect(current.body.code).toBe('TOKEN_REVOKED');
    const me = await client.get('/api/me', second.access_token);
    expect(me.status).toBe(401);
    expect(me.body.code).toBe('TOKEN_REVOKED');

    const audit = (await outboxEvents(stack, 'audit.recorded')).map((e) => e.data).find((d) => d.action === 'auth.refresh_reuse' && d.actor_id === first.user.id);
    expect(audit).toMatchObject({ result: 'failure', biz_type: 'session' });
  });

  it('gives one of two refreshes racing with the same token a pair, and ends the family', async () => {
    const { refresh_token } = await logIn(client);
    const [a, b] = await Promise.all([refresh(refresh_token), refresh(refresh_token)]);
    expect([a.status, b.status].sort()).toEqual([200, 401]);
    const winner = a.status === 200 ? a : b;
    expect((await refresh(winner.body.refresh_token)).status).toBe(401);
    expect((await client.get('/api/me', winner.body.access_token)).status).toBe(401);
  });

  it('logout kills the access token on the very next request and ends its refresh family', async () => {
    const session = await logIn(client);
    expect((await client.get('/api/me', session.access_token)).status).toBe(200);
    const out = await client.post('/api/auth/logout', undefined, session.access_token);
    expect(out.status).toBe(204);
    const me = await client.get('/api/me', session.access_token);
    expect(me.status).toBe(401);
    expect(me.body.code).toBe('TOKEN_REVOKED');
    expect((await refresh(session.refresh_token)).body.code).toBe('TOKEN_REVOKED');
  });

  it('logout with a refresh token of another of the caller’s sessions ends that one too, and leaves a third alone', async () => {
    const phone = newPhone();
    const a = await logIn(client, phone);
    await forgetResendInterval(stack, phone);
    const b = await logIn(client, phone);
    await forgetResendInterval(stack, phone);
    const c = await logIn(client, phone);
    expect((await client.post('/api/auth/logout', { refresh_token: b.refresh_token }, a.access_token)).status).toBe(204);
    expect((await client.get('/api/me', b.access_token)).status).toBe(401);
    expect((await refresh(b.refresh_token)).status).toBe(401);
    expect((await client.get('/api/me', c.access_token)).status).toBe(200);
    expect((await refresh(c.refresh_token)).status).toBe(200);
  });

  it('ignores a refresh token of someone else at logout', async () => {
    const me = await logIn(client);
    const other = await logIn(client);
    expect((await client.post('/api/auth/logout', { refresh_token: other.refresh_token }, me.access_token)).status).toBe(204);
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it('refuses unknown, empty or missing refresh tokens', async () => {
    const unknown = await refresh('not-a-token-we-issued');
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('UNAUTHENTICATED');
    expect((await refresh('')).status).toBe(400);
    expect((await client.post('/api/auth/refresh', {})).status).toBe(400);
  });

  it('needs a user token for /api/me and refuses an admin token there, and a user token on admin routes', async () => {
    expect((await client.get('/api/me')).status).toBe(401);
    expect((await client.get('/api/me', adminToken())).status).toBe(401);
    const { access_token } = await logIn(client);
    const onAdmin = await client.get('/api/admin/users', access_token);
    expect(onAdmin.status).toBe(401);
    expect((await client.post('/api/auth/logout', {}, adminToken())).status).toBe(401);
  });

  it('answers 401 for a valid token whose user does not exist', async () => {
    const res = await client.get('/api/me', foreignUserToken());
    expect(res.status).toBe(401);
  });

  it('drops refresh tokens a day past their expiry and keeps live ones working', async () => {
    const stale = await logIn(client);
    const live = await logIn(client);
    const { db } = stack.services.identity!.ctx;
    await db.query(
      `UPDATE refresh_tokens SET expires_at = now() - interval '2 days'
       WHERE session_id IN (SELECT id FROM sessions WHERE user_id = $1)`,
      [stale.user.id],
    );
    expect(await purgeExpiredRefreshTokens(db)).toBeGreaterThanOrEqual(1);
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE s.user_id = $1`,
      [stale.user.id],
    );
    expect(n).toBe(0);
    expect((await refresh(stale.refresh_token)).status).toBe(401);
    expect((await refresh(live.refresh_token)).status).toBe(200);
  });

  describe('a freeze by the back office', () => {
    const freeze = (id: string) => client.post(`/api/admin/users/${id}/freeze`, { reason: 'chargeback abuse' }, backOffice.token);

    it('stops every token of the user on the next request', async () => {
      const session = await logIn(client);
      expect((await client.get('/api/me', session.access_token)).status).toBe(200);
      expect((await freeze(session.user.id)).status).toBe(200);
      const me = await client.get('/api/me', session.access_token);
      expect([me.status, me.body.code]).toEqual([403, 'USER_FROZEN']);
    });

    it('leaves the tokens from before dead after an unfreeze, while a new login works', async () => {
      const phone = newPhone();
      const before = await logIn(client, phone);
      await freeze(before.user.id);
      expect((await client.post(`/api/admin/users/${before.user.id}/unfreeze`, {}, backOffice.token)).status).toBe(200);
      const old = await client.get('/api/me', before.access_token);
      expect([old.status, old.body.code]).toEqual([401, 'TOKEN_REVOKED']);
      expect((await refresh(before.refresh_token)).body.code).toBe('TOKEN_REVOKED');
      await forgetResendInterval(stack, phone);
      const after = await logIn(client, phone);
      expect((await client.get('/api/me', after.access_token)).body).toMatchObject({ id: before.user.id, frozen: false });
    });

    it('is refused to user tokens and to no token', async () => {
      const { access_token, user } = await logIn(client);
      expect((await client.get('/api/admin/users')).status).toBe(401);
      expect((await client.post(`/api/admin/users/${user.id}/freeze`, { reason: 'self' }, access_token)).status).toBe(401);
    });
  });
});
