import { adminLogin, adminLogout, getAdminCaptcha, listAuditLogs } from '@market/contracts';
import type { AdminIdentity } from '@market/shared/auth';
import { asAdmin, eventually, startComponent, type Component } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../../src/config';
import { forgetQuietLoginFailures } from '../../src/persistence/login-failures';
import { newAdmin } from '../helpers';

const MAX_FAILURES = 3;

/** The session an access token names, as the gateway reads it before asserting the admin. */
const sessionOf = (token: string): string => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid;

describe('admin alone: the captcha login and its lockouts', () => {
  let admin: Component;
  /** an admin who reads the audit log */
  let reader: AdminIdentity;

  beforeAll(async () => {
    admin = await startComponent('admin', { env: { ADMIN_LOGIN_MAX_FAILURES: String(MAX_FAILURES) } });
    reader = asAdmin((await newAdmin(admin)).id);
  });
  afterEach(() => admin.verify());
  afterAll(() => admin?.stop());

  const captcha = async () => (await admin.ok(getAdminCaptcha)) as { captcha_id: string; dev_text: string; image: string };
  const post = (body: unknown) => admin.call(adminLogin, { body });
  const login = async (username: string, password: string) => {
    const { captcha_id, dev_text } = await captcha();
    return post({ username, password, captcha_id, captcha_code: dev_text });
  };
  const loginToken = async (username: string, password: string): Promise<string> => {
    const res = await login(username, password);
    if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.access_token;
  };
  const failedLogins = async (username: string) =>
    (await admin.service.ctx.db.query(`SELECT failed_logins FROM admin_login_failures WHERE username = $1`, [username]))[0]?.failed_logins ?? 0;
  const captchaKey = (id: string) => admin.service.ctx.redisKey(`admin:captcha:${id}`);
  /** The audit entries about one admin, once `accept` takes them (the audit log stores them from its events). */
  const auditOf = (adminId: string, accept: (entries: any[]) => boolean) =>
    eventually(async () => {
      const res = await admin.call(listAuditLogs, { as: reader, query: { biz_type: 'admin_user', limit: 100 } });
      return res.body.items.filter((e: { biz_id: string }) => e.biz_id === adminId);
    }, accept);

  it('hands out a single-use SVG captcha with its text in dev mode', async () => {
    const body = await captcha();
    expect(body.image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(body.image.split(',')[1]!, 'base64').toString()).toContain('<svg');
    expect(body.dev_text).toMatch(/^[A-Za-z0-9]{4}$/);
  });

  it('logs in with captcha and password, answering the admin and a token pair', async () => {
    const made = await newAdmin(admin, { nickname: '客服小艾' });
    const res = await login(made.username, made.password);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, admin: { id: made.id, username: made.username, status: 'active' } });
  });

  it('accepts the username in any letter case and the captcha answer in any case', async () => {
    const made = await newAdmin(admin);
    const { captcha_id, dev_text } = await captcha();
    const flipped = [...dev_text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    expect((await post({ username: made.username.toUpperCase(), password: made.password, captcha_id, captcha_code: flipped })).status).toBe(200);
  });

  it('the bootstrap admin from the development defaults can log in', async () => {
    expect(await loginToken('admin', DEV_BOOTSTRAP_PASSWORD)).toEqual(expect.any(String));
  });

  it('refuses a captcha used once already, even when the first use failed', async () => {
    const made = await newAdmin(admin);
    const { captcha_id, dev_text } = await captcha();
    expect((await post({ username: made.username, password: 'wrong-password-123', captcha_id, captcha_code: dev_text })).status).toBe(401);
    const again = await post({ username: made.username, password: made.password, captcha_id, captcha_code: dev_text });
    expect([again.status, again.body.code]).toEqual([422, 'CAPTCHA_INVALID']);
  });

  it('lets only one of two parallel logins spend the same captcha', async () => {
    const made = await newAdmin(admin);
    const { captcha_id, dev_text } = await captcha();
    const body = { username: made.username, password: made.password, captcha_id, captcha_code: dev_text };
    const results = await Promise.all([post(body), post(body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
  });

  it('refuses a wrong, unknown or expired captcha before looking at the password, counting no failure', async () => {
    const made = await newAdmin(admin);
    const { captcha_id, dev_text } = await captcha();
    const wrong = await post({ username: made.username, password: 'wrong-password-123', captcha_id, captcha_code: dev_text === 'zzzz' ? 'yyyy' : 'zzzz' });
    expect([wrong.status, wrong.body.code]).toEqual([422, 'CAPTCHA_INVALID']);
    expect((await post({ username: made.username, password: made.password, captcha_id: 'no-such-captcha', captcha_code: 'abcd' })).status).toBe(422);
    expect(await failedLogins(made.username)).toBe(0);

    const expiring = await captcha();
    await admin.service.ctx.redis.del(captchaKey(expiring.captcha_id));
    expect((await post({ username: made.username, password: made.password, captcha_id: expiring.captcha_id, captcha_code: expiring.dev_text })).status).toBe(422);
  });

  it('keeps captchas in Redis under the deployment prefix, hashed, for two minutes', async () => {
    const { captcha_id, dev_text } = await captcha();
    const key = captchaKey(captcha_id);
    expect(key.startsWith(String(admin.env.REDIS_KEY_PREFIX))).toBe(true);
    const stored = await admin.service.ctx.redis.get(key);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(dev_text.toLowerCase());
    const ttl = await admin.service.ctx.redis.ttl(key);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });

  it('answers a wrong password and an unknown username alike: 401 "invalid username or password"', async () => {
    const made = await newAdmin(admin);
    for (const res of [await login(made.username, 'wrong-password-123'), await login('nobody_here', 'wrong-password-123')]) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'invalid username or password' });
    }
    expect(await failedLogins(made.username)).toBe(1);
  });

  it(`locks an account after ${MAX_FAILURES} failures in a row, even against the right password, until the lock lifts`, async () => {
    const made = await newAdmin(admin);
    for (let i = 0; i < MAX_FAILURES; i++) expect((await login(made.username, 'wrong-password-123')).status).toBe(401);
    const locked = await login(made.username, made.password);
    expect([locked.status, locked.body.code]).toEqual([429, 'RATE_LIMITED']);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    const entries = await auditOf(made.id, (found) => found.some((e) => e.detail.reason === 'locked'));
    expect(entries.find((e) => e.detail.reason === 'locked')).toMatchObject({ action: 'admin.login', result: 'failure', detail: { username: made.username } });

    await admin.service.ctx.db.query(`UPDATE admin_login_failures SET locked_until = now() - interval '1 second' WHERE username = $1`, [made.username]);
    expect((await login(made.username, made.password)).status).toBe(200);
    expect(await failedLogins(made.username)).toBe(0);
  });

  it(`locks a username no admin has after ${MAX_FAILURES} failures too, answering exactly as for a real admin`, async () => {
    const made = await newAdmin(admin);
    const ghost = `ghost_${made.username}`;
    const shape = (res: Awaited<ReturnType<typeof login>>) => ({
      status: res.status,
      contentType: res.headers.get('content-type'),
      code: res.body.code,
      title: res.body.title,
      detail: res.body.detail,
      retryAfter: res.headers.get('retry-after') === null ? null : Number(res.headers.get('retry-after')) > 14 * 60,
    });
    for (let i = 0; i < MAX_FAILURES; i++) {
      const real = await login(made.username, 'wrong-password-123');
      const unknown = await login(ghost, 'wrong-password-123');
      expect(shape(unknown)).toEqual(shape(real));
      expect(real.status).toBe(401);
    }
    const realLocked = await login(made.username, made.password);
    const unknownLocked = await login(ghost, 'any-password-1234');
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
    const captchas = await Promise.all(Array.from({ length: 8 }, () => captcha()));
    const results = await Promise.all(captchas.map(({ captcha_id, dev_text }) => post({ username: ghost, password: 'wrong-password-123', captcha_id, captcha_code: dev_text })));
    expect(results.map((r) => r.status).sort()).toEqual([...Array(MAX_FAILURES).fill(401), ...Array(8 - MAX_FAILURES).fill(429)]);
  });

  it('takes as long to refuse an unknown username as a wrong password: both run an argon2 verification', async () => {
    const real: number[] = [];
    const unknown: number[] = [];
    const timed = async (username: string, into: number[]) => {
      const { captcha_id, dev_text } = await captcha();
      const started = performance.now();
      const res = await post({ username, password: 'wrong-password-123', captcha_id, captcha_code: dev_text });
      into.push(performance.now() - started);
      expect(res.status).toBe(401);
    };
    // Warms the dummy hash, which is made on first use.
    await timed('nobody_warming_up', []);
    for (let i = 0; i < 5; i++) {
      const made = await newAdmin(admin);
      await timed(made.username, real);
      await timed(`nobody_${made.username}`, unknown);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Loose bounds: the check is that both pay for a hash verification (skipping it would make the
    // unknown name answer some 50 times faster), not a benchmark; other suites share the cores.
    expect(median(unknown) / median(real)).toBeGreaterThan(0.2);
    expect(median(unknown) / median(real)).toBeLessThan(5);
  });

  it('forgets failure counts at names with no attempt for a day, but keeps a lock still in force', async () => {
    const db = admin.service.ctx.db;
    const names = { quiet: `quiet_${Date.now()}`, recent: `recent_${Date.now()}`, locked: `locked_${Date.now()}` };
    for (const name of Object.values(names)) await login(name, 'wrong-password-123');
    await db.query(`UPDATE admin_login_failures SET last_attempt_at = now() - interval '25 hours' WHERE username IN ($1, $2)`, [names.quiet, names.locked]);
    await db.query(`UPDATE admin_login_failures SET locked_until = now() + interval '1 hour' WHERE username = $1`, [names.locked]);
    await forgetQuietLoginFailures(db);
    expect(await failedLogins(names.quiet)).toBe(0);
    expect(await failedLogins(names.recent)).toBe(1);
    expect(await failedLogins(names.locked)).toBe(1);
  });

  it('a success resets the failure count, so only consecutive failures lock', async () => {
    const made = await newAdmin(admin);
    for (let i = 0; i < MAX_FAILURES - 1; i++) await login(made.username, 'wrong-password-123');
    expect((await login(made.username, made.password)).status).toBe(200);
    for (let i = 0; i < MAX_FAILURES - 1; i++) await login(made.username, 'wrong-password-123');
    expect((await login(made.username, made.password)).status).toBe(200);
  });

  it('parallel guesses get no more password checks than the failure budget', async () => {
    const made = await newAdmin(admin);
    const captchas = await Promise.all(Array.from({ length: 8 }, () => captcha()));
    const results = await Promise.all(captchas.map(({ captcha_id, dev_text }) => post({ username: made.username, password: 'wrong-password-123', captcha_id, captcha_code: dev_text })));
    expect(results.map((r) => r.status).sort()).toEqual([...Array(MAX_FAILURES).fill(401), ...Array(8 - MAX_FAILURES).fill(429)]);
  });

  it('refuses a disabled admin with the right password 403, and a wrong password still 401', async () => {
    const made = await newAdmin(admin);
    await admin.service.ctx.db.query(`UPDATE admin_users SET status = 'disabled' WHERE id = $1`, [made.id]);
    const res = await login(made.username, made.password);
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await login(made.username, 'wrong-password-123')).status).toBe(401);
  });

  it('rejects malformed login bodies with 400', async () => {
    const res = await post({ username: 'x', password: 'y', captcha_id: 'z', captcha_code: 'w', extra: 1 });
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await post({ username: 'x' })).status).toBe(400);
  });

  it("audits the admin's creation, each login success and failure and each logout, without the password or captcha", async () => {
    const made = await newAdmin(admin);
    const { captcha_id, dev_text } = await captcha();
    expect((await post({ username: made.username, password: 'not-the-password-1', captcha_id, captcha_code: dev_text })).status).toBe(401);
    const token = await loginToken(made.username, made.password);
    expect((await admin.call(adminLogout, { as: asAdmin(made.id, sessionOf(token)) })).status).toBe(204);

    const entries = await auditOf(made.id, (found) => found.length >= 4);
    expect(entries.map((e: { action: string; result: string }) => `${e.action}:${e.result}`).sort()).toEqual(
      ['admin.login:failure', 'admin.login:success', 'admin.logout:success', 'admin_user.create:success'].sort(),
    );
    expect(entries.find((e: { result: string }) => e.result === 'failure')).toMatchObject({
      actor_type: 'system',
      actor_id: null,
      detail: { username: made.username, reason: 'wrong_password' },
    });
    expect(entries.find((e: { action: string; result: string }) => e.action === 'admin.login' && e.result === 'success')).toMatchObject({
      actor_type: 'admin',
      actor_id: made.id,
    });
    const text = JSON.stringify(entries);
    for (const secret of ['not-the-password-1', made.password, dev_text, token]) expect(text).not.toContain(secret);
  });
});
