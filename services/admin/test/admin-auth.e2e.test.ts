import { ADMIN_PERMISSIONS } from '@market/contracts';
import { api, startStack, type Stack } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { forgetQuietLoginFailures } from '../src/persistence/login-failures';
import { captcha, eventually, login, loginToken, newAdmin, userToken, type Client } from './helpers';

const MAX_FAILURES = 3;

describe('back-office login', () => {
  let stack: Stack;
  let client: Client;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin'], serviceEnv: { admin: { ADMIN_LOGIN_MAX_FAILURES: String(MAX_FAILURES) } } });
    client = api(stack.url);
  });
  afterAll(() => stack.stop());

  const failedLogins = async (username: string) =>
    (await stack.services.admin!.ctx.db.query(`SELECT failed_logins FROM admin_login_failures WHERE username = $1`, [username]))[0]
      ?.failed_logins ?? 0;

  it('hands out a single-use SVG captcha with its text in dev mode', async () => {
    const res = await client.get('/api/admin/auth/captcha');
    expect(res.status).toBe(200);
    expect(res.body.image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(res.body.image.split(',')[1], 'base64').toString()).toContain('<svg');
    expect(res.body.dev_text).toMatch(/^[A-Za-z0-9]{4}$/);
  });

  it('logs in with captcha and password, shows the admin, and a logout kills the token on the next request', async () => {
    const admin = await newAdmin(stack, { nickname: '客服小艾' });
    const res = await login(client, admin.username, admin.password);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, admin: { id: admin.id, username: admin.username, status: 'active' } });
    const token = res.body.access_token;

    const me = await client.get('/api/admin/me', token);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: admin.id,
      username: admin.username,
      nickname: '客服小艾',
      status: 'active',
      roles: ['super_admin'],
      permissions: [...ADMIN_PERMISSIONS],
      created_at: admin.created_at,
    });

    const out = await client.post('/api/admin/auth/logout', undefined, token);
    expect(out.status).toBe(204);
    const after = await client.get('/api/admin/me', token);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('TOKEN_REVOKED');
    const [session] = await stack.services.admin!.ctx.db.query(`SELECT revoked_at FROM admin_sessions WHERE admin_id = $1`, [admin.id]);
    expect(session.revoked_at).not.toBeNull();
  });

  it('accepts the username in any letter case and the captcha answer in any case', async () => {
    const admin = await newAdmin(stack);
    const { captcha_id, dev_text } = await captcha(client);
    const flipped = [...dev_text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    const res = await client.post('/api/admin/auth/login', {
      username: admin.username.toUpperCase(),
      password: admin.password,
      captcha_id,
      captcha_code: flipped,
    });
    expect(res.status).toBe(200);
  });

  it('the bootstrap admin from the development defaults can log in', async () => {
    expect(await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD)).toEqual(expect.any(String));
  });

  it('refuses a captcha used once already, even when the first use failed', async () => {
    const admin = await newAdmin(stack);
    const { captcha_id, dev_text } = await captcha(client);
    const first = await client.post('/api/admin/auth/login', { username: admin.username, password: 'wrong-password-123', captcha_id, captcha_code: dev_text });
    expect(first.status).toBe(401);
    const again = await client.post('/api/admin/auth/login', { username: admin.username, password: admin.password, captcha_id, captcha_code: dev_text });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe('CAPTCHA_INVALID');
  });

  it('lets only one of two parallel logins spend the same captcha', async () => {
    const admin = await newAdmin(stack);
    const { captcha_id, dev_text } = await captcha(client);
    const body = { username: admin.username, password: admin.password, captcha_id, captcha_code: dev_text };
    const results = await Promise.all([client.post('/api/admin/auth/login', body), client.post('/api/admin/auth/login', body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
  });

  it('refuses a wrong, unknown or expired captcha before looking at the password, counting no failure', async () => {
    const admin = await newAdmin(stack);
    const { captcha_id, dev_text } = await captcha(client);
    const wrong = await client.post('/api/admin/auth/login', {
      username: admin.username,
      password: 'wrong-password-123',
      captcha_id,
      captcha_code: dev_text === 'zzzz' ? 'yyyy' : 'zzzz',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe('CAPTCHA_INVALID');
    const unknown = await client.post('/api/admin/auth/login', { username: admin.username, password: admin.password, captcha_id: 'no-such-captcha', captcha_code: 'abcd' });
    expect(unknown.status).toBe(422);
    expect(await failedLogins(admin.username)).toBe(0);

    const expiring = await captcha(client);
    await stack.redis.del(`${stack.env.REDIS_KEY_PREFIX}admin:captcha:${expiring.captcha_id}`);
    const expired = await client.post('/api/admin/auth/login', {
      username: admin.username,
      password: admin.password,
      captcha_id: expiring.captcha_id,
      captcha_code: expiring.dev_text,
    });
    expect(expired.status).toBe(422);
  });

  it('keeps captchas in Redis under the deployment prefix, hashed, for two minutes', async () => {
    const { captcha_id, dev_text } = await captcha(client);
    const key = `${stack.env.REDIS_KEY_PREFIX}admin:captcha:${captcha_id}`;
    const stored = await stack.redis.get(key);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(dev_text.toLowerCase());
    const ttl = await stack.redis.ttl(key);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });

  it('answers a wrong password and an unknown username alike: 401 "invalid username or password"', async () => {
    const admin = await newAdmin(stack);
    const wrong = await login(client, admin.username, 'wrong-password-123');
    const unknown = await login(client, 'nobody_here', 'wrong-password-123');
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'invalid username or password' });
    }
    expect(await failedLogins(admin.username)).toBe(1);
  });

  it(`locks an account after ${MAX_FAILURES} failures in a row, even against the right password, until the lock lifts`, async () => {
    const admin = await newAdmin(stack);
    for (let i = 0; i < MAX_FAILURES; i++) expect((await login(client, admin.username, 'wrong-password-123')).status).toBe(401);
    const locked = await login(client, admin.username, admin.password);
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('RATE_LIMITED');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    const reader = await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD);
    const lockout = await eventually(async () => {
      const res = await client.get(`/api/admin/audit-logs?action=admin.login&biz_type=admin_user&limit=100`, reader);
      return res.body.items.find((e: { biz_id: string; detail: { reason?: string } }) => e.biz_id === admin.id && e.detail.reason === 'locked');
    });
    expect(lockout).toMatchObject({ result: 'failure', detail: { username: admin.username } });

    await stack.services.admin!.ctx.db.query(`UPDATE admin_login_failures SET locked_until = now() - interval '1 second' WHERE username = $1`, [admin.username]);
    expect((await login(client, admin.username, admin.password)).status).toBe(200);
    expect(await failedLogins(admin.username)).toBe(0);
  });

  it(`locks a username no admin has after ${MAX_FAILURES} failures too, answering exactly as for a real admin`, async () => {
    const admin = await newAdmin(stack);
    const ghost = `ghost_${admin.username}`;
    const shape = (res: Awaited<ReturnType<typeof login>>) => ({
      status: res.status,
      contentType: res.headers.get('content-type'),
      code: res.body.code,
      title: res.body.title,
      detail: res.body.detail,
      retryAfter: res.headers.get('retry-after') === null ? null : Number(res.headers.get('retry-after')) > 14 * 60,
    });
    for (let i = 0; i < MAX_FAILURES; i++) {
      const real = await login(client, admin.username, 'wrong-password-123');
      const unknown = await login(client, ghost, 'wrong-password-123');
      expect(shape(unknown)).toEqual(shape(real));
      expect(real.status).toBe(401);
    }
    const realLocked = await login(client, admin.username, admin.password);
    const unknownLocked = await login(client, ghost, 'any-password-1234');
    expect(shape(unknownLocked)).toEqual(shape(realLocked));
    expect(unknownLocked.status).toBe(429);
    const retryAfter = Number(unknownLocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(Math.abs(retryAfter - Number(realLocked.headers.get('retry-after')))).toBeLessThanOrEqual(2);
    expect(await failedLogins(ghost)).toBe(MAX_FAILURES);
  });

  it('parallel guesses at a username no admin has get the same failure budget as at a real one', async () => {
    const ghost = `ghost_${Date.now().toString(36)}`;
    const captchas = await Promise.all(Array.from({ length: 8 }, () => captcha(client)));
    const results = await Promise.all(
      captchas.map(({ captcha_id, dev_text }) =>
        client.post('/api/admin/auth/login', { username: ghost, password: 'wrong-password-123', captcha_id, captcha_code: dev_text }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(MAX_FAILURES).fill(401), ...Array(8 - MAX_FAILURES).fill(429)]);
  });

  it('takes as long to refuse an unknown username as a wrong password: both run an argon2 verification', async () => {
    const real: number[] = [];
    const unknown: number[] = [];
    const timed = async (username: string, into: number[]) => {
      const { captcha_id, dev_text } = await captcha(client);
      const started = performance.now();
      const res = await client.post('/api/admin/auth/login', { username, password: 'wrong-password-123', captcha_id, captcha_code: dev_text });
      into.push(performance.now() - started);
      expect(res.status).toBe(401);
    };
    // Warms the dummy hash, which is made on first use.
    await timed('nobody_warming_up', []);
    for (let i = 0; i < 5; i++) {
      const admin = await newAdmin(stack);
      await timed(admin.username, real);
      await timed(`nobody_${admin.username}`, unknown);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Loose bounds: the check is that both pay for a hash verification (skipping it would make the
    // unknown name answer some 50 times faster), not a benchmark; other suites share the cores.
    expect(median(unknown) / median(real)).toBeGreaterThan(0.2);
    expect(median(unknown) / median(real)).toBeLessThan(5);
  });

  it('forgets failure counts at names with no attempt for a day, but keeps a lock still in force', async () => {
    const db = stack.services.admin!.ctx.db;
    const names = { quiet: `quiet_${Date.now()}`, recent: `recent_${Date.now()}`, locked: `locked_${Date.now()}` };
    for (const name of Object.values(names)) await login(client, name, 'wrong-password-123');
    await db.query(`UPDATE admin_login_failures SET last_attempt_at = now() - interval '25 hours' WHERE username IN ($1, $2)`, [names.quiet, names.locked]);
    await db.query(`UPDATE admin_login_failures SET locked_until = now() + interval '1 hour' WHERE username = $1`, [names.locked]);
    await forgetQuietLoginFailures(db);
    expect(await failedLogins(names.quiet)).toBe(0);
    expect(await failedLogins(names.recent)).toBe(1);
    expect(await failedLogins(names.locked)).toBe(1);
  });

  it('a success resets the failure count, so only consecutive failures lock', async () => {
    const admin = await newAdmin(stack);
    for (let i = 0; i < MAX_FAILURES - 1; i++) await login(client, admin.username, 'wrong-password-123');
    expect((await login(client, admin.username, admin.password)).status).toBe(200);
    for (let i = 0; i < MAX_FAILURES - 1; i++) await login(client, admin.username, 'wrong-password-123');
    expect((await login(client, admin.username, admin.password)).status).toBe(200);
  });

  it('parallel guesses get no more password checks than the failure budget', async () => {
    const admin = await newAdmin(stack);
    const captchas = await Promise.all(Array.from({ length: 8 }, () => captcha(client)));
    const results = await Promise.all(
      captchas.map(({ captcha_id, dev_text }) =>
        client.post('/api/admin/auth/login', { username: admin.username, password: 'wrong-password-123', captcha_id, captcha_code: dev_text }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(MAX_FAILURES).fill(401), ...Array(8 - MAX_FAILURES).fill(429)]);
  });

  it('refuses a disabled admin with the right password 403, and a wrong password still 401', async () => {
    const admin = await newAdmin(stack);
    const token = await loginToken(client, admin.username, admin.password);
    await stack.services.admin!.ctx.db.query(`UPDATE admin_users SET status = 'disabled' WHERE id = $1`, [admin.id]);
    const res = await login(client, admin.username, admin.password);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect((await login(client, admin.username, 'wrong-password-123')).status).toBe(401);
    expect((await client.get('/api/admin/me', token)).status).toBe(403);
  });

  it('refuses user tokens and missing tokens on admin routes', async () => {
    for (const path of ['/api/admin/me', '/api/admin/system-configs', '/api/admin/audit-logs', '/api/admin/dashboard']) {
      const asUser = await client.get(path, userToken());
      expect(asUser.status).toBe(401);
      expect((await client.get(path)).status).toBe(401);
    }
    expect((await client.post('/api/admin/auth/logout', undefined, userToken())).status).toBe(401);
  });

  it('refuses an admin token on user routes', async () => {
    const admin = await newAdmin(stack);
    const token = await loginToken(client, admin.username, admin.password);
    expect((await client.get('/api/me', token)).status).toBe(401);
  });

  it('rejects malformed login bodies with 400', async () => {
    const res = await client.post('/api/admin/auth/login', { username: 'x', password: 'y', captcha_id: 'z', captcha_code: 'w', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect((await client.post('/api/admin/auth/login', { username: 'x' })).status).toBe(400);
  });

  it('audits the admin\'s creation, each login success and failure and each logout, without the password or captcha', async () => {
    const admin = await newAdmin(stack);
    const { captcha_id, dev_text } = await captcha(client);
    const bad = await client.post('/api/admin/auth/login', { username: admin.username, password: 'not-the-password-1', captcha_id, captcha_code: dev_text });
    expect(bad.status).toBe(401);
    const token = await loginToken(client, admin.username, admin.password);
    expect((await client.post('/api/admin/auth/logout', undefined, token)).status).toBe(204);
    const reader = await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD);

    const entries = await eventually(async () => {
      const res = await client.get(`/api/admin/audit-logs?biz_type=admin_user&limit=100`, reader);
      const mine = res.body.items.filter((e: { biz_id: string }) => e.biz_id === admin.id);
      return mine.length >= 4 ? mine : undefined;
    });
    expect(entries.map((e: { action: string; result: string }) => `${e.action}:${e.result}`).sort()).toEqual(
      ['admin.login:failure', 'admin.login:success', 'admin.logout:success', 'admin_user.create:success'].sort(),
    );
    const failure = entries.find((e: { result: string }) => e.result === 'failure');
    expect(failure).toMatchObject({ actor_type: 'system', actor_id: null, detail: { username: admin.username, reason: 'wrong_password' } });
    const success = entries.find((e: { action: string; result: string }) => e.action === 'admin.login' && e.result === 'success');
    expect(success).toMatchObject({ actor_type: 'admin', actor_id: admin.id });
    const text = JSON.stringify(entries);
    expect(text).not.toContain('not-the-password-1');
    expect(text).not.toContain(admin.password);
    expect(text).not.toContain(dev_text);
    expect(text).not.toContain(token);
  });
});
