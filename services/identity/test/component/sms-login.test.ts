import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getMe } from '@market/contracts';
import { asUser, startComponent, type Component } from '@market/testkit';
import { forgetResendInterval, newIp, newPhone } from '../helpers';
import { smsLogin } from './support';

const logDir = mkdtempSync(path.join(tmpdir(), 'identity-log-'));
const logFile = path.join(logDir, 'identity.log');
const secretsSeen: string[] = [];

describe('identity alone: SMS login', () => {
  let identity: Component;

  beforeAll(async () => {
    identity = await startComponent('identity', {
      env: { SMS_DAILY_LIMIT_PER_PHONE: '3', SMS_DAILY_LIMIT_PER_IP: '4', LOG_FILE: logFile, LOG_LEVEL: 'debug' },
    });
  });
  afterEach(() => identity.verify());
  afterAll(async () => {
    await identity?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  const { send, login, sendCode, logIn, outboxEvents } = smsLogin(() => identity);

  it('sends a 6-digit code (+86 accepted) that logs a new phone in once, registering the user', async () => {
    const phone = newPhone();
    const ip = newIp();
    const sent = await send({ phone: `+86${phone}` }, ip);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ expires_in: 300, resend_after: 60, dev_code: expect.stringMatching(/^\d{6}$/) });

    const loggedIn = await login({ phone, code: sent.body.dev_code }, ip);
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(loggedIn.body.user).toMatchObject({
      phone_masked: `${phone.slice(0, 3)}****${phone.slice(-4)}`,
      nickname: `用户${phone.slice(-4)}`,
      realname_status: 'unverified',
      frozen: false,
    });
    secretsSeen.push(sent.body.dev_code, loggedIn.body.access_token, loggedIn.body.refresh_token, phone);

    expect(await identity.ok(getMe, { as: asUser(loggedIn.body.user.id) })).toEqual(loggedIn.body.user);

    const again = await login({ phone, code: sent.body.dev_code }, ip);
    expect(again.status).toBe(422);
    expect(again.body.code).toBe('SMS_CODE_INVALID');

    const registered = (await outboxEvents('user.registered')).filter((e) => e.data.user_id === loggedIn.body.user.id);
    expect(registered).toHaveLength(1);
    expect(registered[0]!.data.phone_masked).toBe(loggedIn.body.user.phone_masked);
  });

  it('logs a known phone into the same user without registering it again', async () => {
    const phone = newPhone();
    const first = await logIn(phone);
    await forgetResendInterval(identity, phone);
    const second = await logIn(`86${phone}`);
    expect(second.user.id).toBe(first.user.id);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const registered = (await outboxEvents('user.registered')).filter((e) => e.data.user_id === first.user.id);
    expect(registered).toHaveLength(1);
  });

  it('refuses a wrong code with 422 and burns the code after five wrong tries', async () => {
    const phone = newPhone();
    const ip = newIp();
    const code = await sendCode(phone, ip);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await login({ phone, code: wrong }, ip);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('SMS_CODE_INVALID');
    }
    const right = await login({ phone, code }, ip);
    expect(right.status).toBe(422);
  });

  it('keeps a code usable after fewer than five wrong tries', async () => {
    const phone = newPhone();
    const code = await sendCode(phone);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) await login({ phone, code: wrong });
    expect((await login({ phone, code })).status).toBe(200);
  });

  it('refuses a code for a phone that never asked for one', async () => {
    const res = await login({ phone: newPhone(), code: '123456' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('SMS_CODE_INVALID');
  });

  it('answers a resend within 60 seconds with 429 and Retry-After, and the first code still works', async () => {
    const phone = newPhone();
    const code = await sendCode(phone);
    const early = await send({ phone });
    expect(early.status).toBe(429);
    expect(early.body.code).toBe('RATE_LIMITED');
    const retryAfter = Number(early.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await login({ phone, code })).status).toBe(200);
  });

  it('caps the codes a phone gets per day', async () => {
    const phone = newPhone();
    for (let i = 0; i < 3; i++) {
      await sendCode(phone);
      await forgetResendInterval(identity, phone);
    }
    const capped = await send({ phone });
    expect(capped.status).toBe(429);
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(60);
  });

  it('caps the codes one address asks for per day', async () => {
    const ip = newIp();
    for (let i = 0; i < 4; i++) await sendCode(newPhone(), ip);
    const capped = await send({ phone: newPhone() }, ip);
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('RATE_LIMITED');
    expect((await send({ phone: newPhone() })).status).toBe(200);
  });

  it('lets exactly one of several logins racing with the same code through', async () => {
    const phone = newPhone();
    const code = await sendCode(phone);
    const results = await Promise.all(Array.from({ length: 5 }, () => login({ phone, code })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422]);
    const users: Array<{ n: number }> = await identity.service.ctx.db.query(
      `SELECT count(*)::int AS n FROM users WHERE phone = $1`,
      [phone],
    );
    expect(users[0]!.n).toBe(1);
  });

  it('audits successful and refused logins without the code', async () => {
    const phone = newPhone();
    const code = await sendCode(phone);
    await login({ phone, code: code === '999999' ? '000000' : '999999' });
    const loggedIn = await login({ phone, code });
    expect(loggedIn.status).toBe(200);
    const { user } = loggedIn.body;
    secretsSeen.push(code, loggedIn.body.access_token, loggedIn.body.refresh_token);
    const audits = (await outboxEvents('audit.recorded')).map((e) => e.data).filter((d) => d.action === 'auth.login');
    const refused = audits.find((d) => d.result === 'failure' && d.detail.phone_masked === `${phone.slice(0, 3)}****${phone.slice(-4)}`);
    expect(refused).toMatchObject({ actor_type: 'system', actor_id: null, detail: { reason: 'sms_code_invalid' } });
    expect(audits.find((d) => d.result === 'success' && d.actor_id === user.id)).toMatchObject({ actor_type: 'user', biz_id: user.id });
    expect(JSON.stringify(audits)).not.toContain(code);
  });

  it('rejects malformed phones and codes with 400', async () => {
    for (const phone of ['12345', '1380013800', '+1 2025550100', 23800138000]) {
      const res = await send({ phone });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    const shortCode = await login({ phone: newPhone(), code: '12345' });
    expect(shortCode.status).toBe(400);
    const extra = await send({ phone: newPhone(), debug: true });
    expect(extra.status).toBe(400);
  });

  it('never writes codes, tokens or phone numbers to the log', async () => {
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('sms code sent');
    expect(log).toContain('"path":"/api/auth/sms/login"');
    for (const secret of secretsSeen) expect(log).not.toContain(secret);
  });
});
