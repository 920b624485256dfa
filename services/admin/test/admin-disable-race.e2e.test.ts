import { randomBytes } from 'node:crypto';
import { stackPerSuite } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { captcha, loginToken, uniqueUsername } from './helpers';

/** A stack of its own: these tests need to know every admin there is. */
describe('disabling the last active admins', () => {
  // The password change books a login attempt at the same name and address as the logins racing it
  // (ADR 0034): on a slow machine more than the default 5 can be booked before the change's, which
  // then meets the hold-off instead of the race. Throttling has its own tests; here it stays out of the way.
  const own = stackPerSuite({ services: ['admin'], serviceEnv: { admin: { ADMIN_LOGIN_MAX_FAILURES: '20' } } });

  const activeIds = async (): Promise<string[]> =>
    (await own.stack.services.admin!.ctx.db.query(`SELECT id FROM admin_users WHERE status = 'active' ORDER BY id`)).map((r: { id: string }) => r.id);

  /** Sessions of `adminId` no disable, password change or logout has ended. */
  const liveSessions = async (adminId: string): Promise<number> =>
    (await own.stack.services.admin!.ctx.db.query(`SELECT count(*)::int AS n FROM admin_sessions WHERE admin_id = $1 AND revoked_at IS NULL`, [adminId]))[0]
      .n;

  it('a login racing a disable or a password change never keeps a session that change ended', async () => {
    const root = await loginToken(own.client, 'admin', DEV_BOOTSTRAP_PASSWORD);
    const username = uniqueUsername('racer');
    let password = `pw-${randomBytes(10).toString('hex')}`;
    const target = (await own.client.post('/api/admin/admins', { username, nickname: username, password }, root)).body as { id: string };
    const logIn = async (secret = password) => {
      const { captcha_id, dev_text } = await captcha(own.client);
      return own.client.post('/api/admin/auth/login', { username, password: secret, captcha_id, captcha_code: dev_text });
    };
    const disable = () => own.client.post(`/api/admin/admins/${target.id}/disable`, {}, root);
    const enable = async () => expect((await own.client.post(`/api/admin/admins/${target.id}/enable`, {}, root)).status).toBe(200);

    // Each side of the race on its own, so each outcome is pinned down: a login before the disable
    // has its session ended by it (dead even once the admin is enabled again); a login after it is refused.
    const before = await logIn();
    expect(before.status).toBe(200);
    expect((await disable()).status).toBe(200);
    const after = await logIn();
    expect([after.status, after.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(await liveSessions(target.id)).toBe(0);
    await enable();
    expect((await own.client.get('/api/admin/me', before.body.access_token)).status).toBe(401);

    // The race: whichever side commits first, no session of the target outlives the disable.
    for (let round = 0; round < 3; round++) {
      const [login, disabled] = await Promise.all([logIn(), disable()]);
      expect(disabled.status).toBe(200);
      expect(await liveSessions(target.id)).toBe(0);
      await enable();
      if (login.status === 200) expect((await own.client.get('/api/admin/me', login.body.access_token)).status).toBe(401);
      // refused as disabled, or (disabled while its password was being checked) as changed meanwhile
      else expect([[403, 'FORBIDDEN'], [401, 'UNAUTHENTICATED']]).toContainEqual([login.status, login.body.code]);
    }

    // Logins started at staggered moments, so that some are checking the old password while the change commits.
    for (let round = 0; round < 2; round++) {
      const changer = await loginToken(own.client, username, password);
      const replacement = `pw-${randomBytes(10).toString('hex')}`;
      const captchas = await Promise.all(Array.from({ length: 8 }, () => captcha(own.client)));
      const old = password;
      const [changed, ...logins] = await Promise.all([
        own.client.post('/api/admin/me/password', { current_password: old, new_password: replacement }, changer),
        ...captchas.map(async ({ captcha_id, dev_text }, i) => {
          // the stagger is the subject: logins start at spread moments around the change's commit
          await new Promise((resolve) => setTimeout(resolve, i * 40));
          return own.client.post('/api/admin/auth/login', { username, password: old, captcha_id, captcha_code: dev_text });
        }),
      ]);
      expect(changed.status).toBe(200);
      password = replacement;
      // Whatever interleaving happened, the changer's own session is the only one left.
      expect(await liveSessions(target.id)).toBe(1);
      expect((await own.client.get('/api/admin/me', changer)).status).toBe(200);
      for (const login of logins) {
        if (login.status === 200) expect((await own.client.get('/api/admin/me', login.body.access_token)).status).toBe(401);
        else expect([401, 429]).toContain(login.status);
      }
      await own.stack.services.admin!.ctx.db.query(`DELETE FROM admin_login_failures WHERE username = $1`, [username]);
      expect((await logIn(old)).status).toBe(401);
    }
    expect((await disable()).status).toBe(200);
    expect(await liveSessions(target.id)).toBe(0);
  });

  it('of two admins disabling each other at once exactly one succeeds and one stays active, round after round', async () => {
    let survivor = { token: await loginToken(own.client, 'admin', DEV_BOOTSTRAP_PASSWORD), id: '' };
    survivor.id = (await own.client.get('/api/admin/me', survivor.token)).body.id;
    for (let round = 0; round < 4; round++) {
      const username = uniqueUsername('pair');
      const password = `pw-${randomBytes(10).toString('hex')}`;
      const added = await own.client.post('/api/admin/admins', { username, nickname: username, password, roles: ['super_admin'] }, survivor.token);
      expect(added.status).toBe(201);
      const challenger = { token: await loginToken(own.client, username, password), id: added.body.id as string };
      expect((await activeIds()).sort()).toEqual([survivor.id, challenger.id].sort());

      const [bySurvivor, byChallenger] = await Promise.all([
        own.client.post(`/api/admin/admins/${challenger.id}/disable`, {}, survivor.token),
        own.client.post(`/api/admin/admins/${survivor.id}/disable`, {}, challenger.token),
      ]);
      const statuses = [bySurvivor.status, byChallenger.status];
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      const loser = bySurvivor.status === 200 ? byChallenger : bySurvivor;
      // 409 from the service when it got that far, or 403 from the gateway when the winner's block came first.
      expect([[403, 'FORBIDDEN'], [409, 'LAST_ACTIVE_ADMIN']]).toContainEqual([loser.status, loser.body.code]);

      const active = await activeIds();
      expect(active).toHaveLength(1);
      survivor = active[0] === survivor.id ? survivor : challenger;
      expect((await own.client.get('/api/admin/me', survivor.token)).status).toBe(200);
    }

    const self = await own.client.post(`/api/admin/admins/${survivor.id}/disable`, {}, survivor.token);
    expect(self.status).toBe(403);
    expect(await activeIds()).toEqual([survivor.id]);
  });
});

/** A stack of its own: the race needs to know every super admin there is. */
describe('disabling and demoting the last super admins', () => {
  // The password change books a login attempt at the same name and address as the logins racing it
  // (ADR 0034): on a slow machine more than the default 5 can be booked before the change's, which
  // then meets the hold-off instead of the race. Throttling has its own tests; here it stays out of the way.
  const own = stackPerSuite({ services: ['admin'], serviceEnv: { admin: { ADMIN_LOGIN_MAX_FAILURES: '20' } } });

  it('a super admin taking the other’s role while being disabled by it: one wins, a super admin remains', async () => {
    const root = await loginToken(own.client, 'admin', DEV_BOOTSTRAP_PASSWORD);
    const rootId = (await own.client.get('/api/admin/me', root)).body.id as string;
    const superAdmin = async () => {
      const username = uniqueUsername('sup');
      const password = `pw-${randomBytes(10).toString('hex')}`;
      const added = await own.client.post('/api/admin/admins', { username, nickname: username, password, roles: ['super_admin'] }, root);
      expect(added.status).toBe(201);
      return { id: added.body.id as string, token: await loginToken(own.client, username, password) };
    };
    const activeSuperAdmins = async (): Promise<string[]> =>
      (await own.stack.services.admin!.ctx.db.query(`SELECT id FROM admin_users WHERE status = 'active' AND 'super_admin' = ANY (roles)`)).map(
        (r: { id: string }) => r.id,
      );
    for (let round = 0; round < 6; round++) {
      const [a, b] = [await superAdmin(), await superAdmin()];
      // Leave a and b the only super admins for the race.
      expect((await own.client.put(`/api/admin/admins/${rootId}/roles`, { roles: ['auditor'] }, a.token)).status).toBe(200);
      const [demoted, disabled] = await Promise.all([
        own.client.put(`/api/admin/admins/${a.id}/roles`, { roles: [] }, b.token),
        own.client.post(`/api/admin/admins/${b.id}/disable`, {}, a.token),
      ]);
      expect([demoted.status, disabled.status].filter((s) => s === 200)).toHaveLength(1);
      const supers = await activeSuperAdmins();
      expect(supers).toHaveLength(1);
      const winner = supers[0] === a.id ? a : b;
      // Back to root as the only super admin for the next round.
      expect((await own.client.put(`/api/admin/admins/${rootId}/roles`, { roles: ['super_admin'] }, winner.token)).status).toBe(200);
      expect((await own.client.put(`/api/admin/admins/${winner.id}/roles`, { roles: [] }, root)).status).toBe(200);
      expect(await activeSuperAdmins()).toEqual([rootId]);
    }
  });
});
