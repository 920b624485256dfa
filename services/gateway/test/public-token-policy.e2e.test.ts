import { randomBytes, randomInt } from 'node:crypto';
import { allRoutes } from '@market/contracts';
import { api, Argon2Passwords, createAdmin, MINIMUM_PASSWORD_COST, mintToken, type Stack, startStack } from '@market/testkit';

const newPhone = () => `136${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
let address = 0;
/** A fresh client address per call keeps the per-address SMS and login limits out of the way. */
const fromNewAddress = () => ({ 'x-forwarded-for': `10.77.${Math.floor(++address / 250)}.${address % 250}` });

describe('what a token attached to a public route means', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let admin: { username: string; password: string };
  /** Authorization headers a client may still send from an earlier session, each with a label. */
  let staleHeaders: Array<[string, string]>;

  async function userLogin() {
    const phone = newPhone();
    const headers = fromNewAddress();
    const sent = await client.post('/api/auth/sms/send', { phone }, undefined, headers);
    const login = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code }, undefined, headers);
    expect(login.status).toBe(200);
    return login.body as { access_token: string; refresh_token: string; user: { id: string } };
  }

  async function adminLogin(authorization?: string) {
    const headers = { ...fromNewAddress(), ...(authorization ? { authorization } : {}) };
    const captcha = await client.get('/api/admin/auth/captcha', undefined, headers);
    expect(captcha.status).toBe(200);
    return client.post(
      '/api/admin/auth/login',
      { username: admin.username, password: admin.password, captcha_id: captcha.body.captcha_id, captcha_code: captcha.body.dev_text },
      undefined,
      headers,
    );
  }

  beforeAll(async () => {
    stack = await startStack({ services: ['identity', 'catalog', 'admin'], env: { TRUST_PROXY: 'true' } });
    client = api(stack.url);
    const ctx = stack.services.admin!.ctx;
    admin = { username: `policy_${randomBytes(4).toString('hex')}`, password: `pw-${randomBytes(12).toString('hex')}` };
    await createAdmin({ db: ctx.db, events: ctx.events, passwords: new Argon2Passwords(MINIMUM_PASSWORD_COST) }, { ...admin, nickname: admin.username });

    const revokedUser = await userLogin();
    expect((await client.post('/api/auth/logout', {}, revokedUser.access_token)).status).toBe(204);
    const revokedAdmin = (await adminLogin()).body.access_token as string;
    expect((await client.post('/api/admin/auth/logout', {}, revokedAdmin)).status).toBe(204);
    staleHeaders = [
      ['expired user token', `Bearer ${mintToken('user', undefined, undefined, -3600)}`],
      ['revoked user token', `Bearer ${revokedUser.access_token}`],
      ['expired admin token', `Bearer ${mintToken('admin', undefined, undefined, -3600)}`],
      ['revoked admin token', `Bearer ${revokedAdmin}`],
      ['token that is no JWT', 'Bearer not.a.token'],
      ['header that is not Bearer', 'Basic dXNlcjpwYXNz'],
    ];
  }, 60_000);
  afterAll(async () => {
    await stack.stop();
  });

  it('declares a token policy on every public route, and 401 where a token is read', () => {
    for (const route of allRoutes.filter((r) => r.auth === 'public')) {
      expect({ route: route.id, token: route.token }).toEqual({ route: route.id, token: expect.stringMatching(/^(ignored|optional)$/) });
      if (route.token === 'optional') expect({ route: route.id, errors: route.errors }).toEqual({ route: route.id, errors: expect.arrayContaining([401]) });
    }
  });

  it('sends an SMS code whatever stale token comes along', async () => {
    for (const [label, authorization] of staleHeaders) {
      const res = await client.post('/api/auth/sms/send', { phone: newPhone() }, undefined, { ...fromNewAddress(), authorization });
      expect({ label, status: res.status }).toEqual({ label, status: 200 });
    }
  });

  it('logs in by SMS whatever stale token comes along', async () => {
    for (const [label, authorization] of staleHeaders) {
      const phone = newPhone();
      const headers = fromNewAddress();
      const sent = await client.post('/api/auth/sms/send', { phone }, undefined, headers);
      const res = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code }, undefined, { ...headers, authorization });
      expect({ label, status: res.status }).toEqual({ label, status: 200 });
      expect(res.body.access_token).toEqual(expect.any(String));
    }
  });

  it('refreshes a session whatever stale token comes along, as a mobile app does with its expired access token', async () => {
    for (const [label, authorization] of staleHeaders) {
      const { refresh_token } = await userLogin();
      const res = await client.post('/api/auth/refresh', { refresh_token }, undefined, { ...fromNewAddress(), authorization });
      expect({ label, status: res.status }).toEqual({ label, status: 200 });
      expect(res.body.refresh_token).not.toBe(refresh_token);
    }
  });

  it('hands out a back-office captcha whatever stale token comes along', async () => {
    for (const [label, authorization] of staleHeaders) {
      const res = await client.get('/api/admin/auth/captcha', undefined, { ...fromNewAddress(), authorization });
      expect({ label, status: res.status }).toEqual({ label, status: 200 });
    }
  });

  it('logs an admin in with an expired or revoked token of either realm attached', async () => {
    // password hashing makes each login slow, so only the expired and revoked tokens are tried here
    for (const [label, authorization] of staleHeaders.filter(([label]) => /expired|revoked/.test(label))) {
      const res = await adminLogin(authorization);
      expect({ label, status: res.status }).toEqual({ label, status: 200 });
      expect(res.body.admin.username).toBe(admin.username);
    }
  });

  it('still refuses a bad token on a public read that a valid token changes, and shows the owner more with a good one', async () => {
    const owner = await userLogin();
    const draft = await client.post(
      '/api/listings',
      { title: 'draft', game: 'policy-game', server: 's', description: 'd', hourly_price: 500, min_hours: 1, max_hours: 24, deposit: 1000 },
      owner.access_token,
    );
    expect(draft.status).toBe(201);
    const path = `/api/listings/${draft.body.id}`;
    expect((await client.get(path)).status).toBe(404);
    expect((await client.get(path, owner.access_token)).status).toBe(200);
    const expected: Record<string, string> = {
      'expired user token': 'TOKEN_EXPIRED',
      'revoked user token': 'TOKEN_REVOKED',
      'expired admin token': 'UNAUTHENTICATED',
      'revoked admin token': 'UNAUTHENTICATED',
      'token that is no JWT': 'UNAUTHENTICATED',
      'header that is not Bearer': 'UNAUTHENTICATED',
    };
    for (const [label, authorization] of staleHeaders) {
      const res = await client.get(path, undefined, { authorization });
      expect({ label, status: res.status, code: res.body.code }).toEqual({ label, status: 401, code: expected[label] });
    }
  });
});
