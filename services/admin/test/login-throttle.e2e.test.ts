import { capturedLog, eventually, stackPerSuite } from '@market/testkit';
import { captcha, newAdmin } from './helpers';

const MAX_FAILURES = 3;
const ACCOUNT_LOCK_FAILURES = 8;

/**
 * Guessing at an admin's password is held off per (username, client address), with a fresh captcha
 * each time and a longer hold each time; the account itself locks only at a much higher count over
 * every address, with an alert (ADR 0034). A stranger can no longer lock a named admin out.
 */
describe('admin login throttling per username and address', () => {
  const logs = capturedLog('admin-throttle');
  const own = stackPerSuite({
    services: ['admin'],
    env: { TRUST_PROXY: 'true' },
    serviceEnv: {
      admin: {
        ADMIN_LOGIN_MAX_FAILURES: String(MAX_FAILURES),
        ADMIN_ACCOUNT_LOCK_FAILURES: String(ACCOUNT_LOCK_FAILURES),
        LOG_FILE: logs.file,
        LOG_LEVEL: 'info',
      },
    },
  });

  const loginFrom = async (address: string, username: string, password: string) => {
    const { captcha_id, dev_text } = await captcha(own.client);
    return own.client.post('/api/admin/auth/login', { username, password, captcha_id, captcha_code: dev_text }, undefined, { 'x-forwarded-for': address });
  };
  const liftHold = (username: string, address: string) =>
    own.stack.services.admin!.ctx.db.query(`UPDATE admin_login_failures SET locked_until = now() - interval '1 second' WHERE username = $1 AND address = $2`, [
      username,
      address,
    ]);

  it('a stranger guessing holds off only their own address; the admin logs in from theirs', async () => {
    const admin = await newAdmin(own.stack);
    for (let i = 0; i < 5; i++) {
      const res = await loginFrom('203.0.113.7', admin.username, `guess-number-${i}`);
      expect(res.status).toBe(i < MAX_FAILURES ? 401 : 429);
    }
    const held = await loginFrom('203.0.113.7', admin.username, admin.password);
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect((await loginFrom('198.51.100.20', admin.username, admin.password)).status).toBe(200);
  });

  it('counts the addresses of one IPv6 /64 as one: rotating through them buys no fresh guesses', async () => {
    const admin = await newAdmin(own.stack);
    for (let i = 0; i < MAX_FAILURES; i++) expect((await loginFrom(`2001:db8:77:1::${i + 1}`, admin.username, `guess-number-${i}`)).status).toBe(401);
    const held = await loginFrom('2001:db8:77:1:ffff::9', admin.username, admin.password);
    expect(held.status).toBe(429);
    expect((await loginFrom('2001:db8:77:2::1', admin.username, admin.password)).status).toBe(200);
  });

  it('holds an address off longer at each hold', async () => {
    const admin = await newAdmin(own.stack);
    const address = '203.0.113.8';
    const holdAfterFailures = async () => {
      for (let i = 0; i < MAX_FAILURES; i++) expect((await loginFrom(address, admin.username, 'wrong-password-123')).status).toBe(401);
      const held = await loginFrom(address, admin.username, admin.password);
      expect(held.status).toBe(429);
      return Number(held.headers.get('retry-after'));
    };
    const first = await holdAfterFailures();
    expect(first).toBeGreaterThan(14 * 60);
    expect(first).toBeLessThanOrEqual(15 * 60);
    await liftHold(admin.username, address);
    const second = await holdAfterFailures();
    expect(second).toBeGreaterThan(29 * 60);
    expect(second).toBeLessThanOrEqual(30 * 60);
  });

  it('locks the account itself only after many failures over many addresses, and raises an alert', async () => {
    const admin = await newAdmin(own.stack);
    // Two failures per address stay under every address's budget.
    let failures = 0;
    for (let address = 1; failures < ACCOUNT_LOCK_FAILURES; address++) {
      for (let i = 0; i < 2 && failures < ACCOUNT_LOCK_FAILURES; i++, failures++) {
        expect((await loginFrom(`192.0.2.${address}`, admin.username, 'wrong-password-123')).status).toBe(401);
      }
    }
    const locked = await loginFrom('198.51.100.99', admin.username, admin.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);

    const alert = await eventually(
      async () =>
        logs
          .text()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
          .find((entry) => entry.alert === 'admin_account_locked' && entry.username === admin.username),
    );
    expect(alert).toMatchObject({ level: 'error', failures: ACCOUNT_LOCK_FAILURES });
    await eventually(
      async () =>
        (await own.stack.services.admin!.ctx.db.query(`SELECT biz_id FROM audit_logs WHERE action = 'admin.account_locked' AND biz_id = $1`, [admin.id])).length,
      (n) => n === 1,
    );

    await own.stack.services.admin!.ctx.db.query(`UPDATE admin_account_failures SET locked_until = now() - interval '1 second' WHERE username = $1`, [
      admin.username,
    ]);
    expect((await loginFrom('198.51.100.99', admin.username, admin.password)).status).toBe(200);
  });
});
