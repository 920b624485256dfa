import { randomBytes } from 'node:crypto';
import { ADMIN_PERMISSIONS, OPEN_UPLOAD_ACCOUNT_EXAMPLE } from '@market/contracts';
import { api, startStack, type Stack } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { eventually, login, loginToken, newAdmin, uniqueUsername, userToken, type Client } from './helpers';

const MAX_FAILURES = 3;

const newPassword = () => `pw-${randomBytes(10).toString('hex')}`;

/**
 * Managing back-office admins through the gateway. Catalog and identity run too, because a
 * disabled admin must stop matching open uploads, which catalog asks the admin service about.
 * The admin tokens the gateway checks on every request are here too: a logout or a disabling
 * ends them at once, and a token of the other realm is refused. The captcha login and its lockouts,
 * which the admin service decides alone, are in test/component/login.test.ts (ADR 0058).
 */
describe('managing admins', () => {
  let stack: Stack;
  let client: Client;
  let root: string;

  beforeAll(async () => {
    stack = await startStack({
      services: ['admin', 'catalog', 'identity'],
      serviceEnv: { admin: { ADMIN_LOGIN_MAX_FAILURES: String(MAX_FAILURES) } },
    });
    client = api(stack.url);
    root = await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD);
  });
  afterAll(() => stack.stop());

  const addAdmin = async (overrides: { username?: string; nickname?: string } = {}) => {
    const username = overrides.username ?? uniqueUsername();
    const password = newPassword();
    const res = await client.post('/api/admin/admins', { username, nickname: overrides.nickname ?? username, password, roles: ['super_admin'] }, root);
    if (res.status !== 201) throw new Error(`adding an admin answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { ...res.body, password } as { id: string; username: string; nickname: string; password: string };
  };

  const upload = (uploaderName: string) =>
    client.post('/api/open/listing-uploads', {
      uploadTime: '2026-11-22 18:00:00',
      uploaderName,
      data: { ...OPEN_UPLOAD_ACCOUNT_EXAMPLE, account: `acct-${randomBytes(4).toString('hex')}` },
    });

  it('an admin adds an admin who can log in at once; the list pages newest first and filters by status', async () => {
    const username = uniqueUsername('new');
    const password = newPassword();
    const created = await client.post('/api/admin/admins', { username, nickname: '客服小新', password }, root);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), username, nickname: '客服小新', status: 'active', roles: [], created_at: expect.any(String) });
    expect(await loginToken(client, username, password)).toEqual(expect.any(String));
    const later = [await addAdmin(), await addAdmin()];

    const seen: Array<{ id: string; created_at: string }> = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: typeof seen; next_cursor: string | null } } = await client.get(
        `/api/admin/admins?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        root,
      );
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items);
      cursor = page.body.next_cursor;
    } while (cursor);
    const ids = seen.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.indexOf(later[1]!.id)).toBeLessThan(ids.indexOf(later[0]!.id));
    expect(ids.indexOf(later[0]!.id)).toBeLessThan(ids.indexOf(created.body.id));
    const times = seen.map((a) => a.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    const [active, disabled] = await Promise.all([
      client.get('/api/admin/admins?status=active&limit=100', root),
      client.get('/api/admin/admins?status=disabled&limit=100', root),
    ]);
    expect(active.body.items.map((a: { id: string }) => a.id)).toContain(created.body.id);
    expect(disabled.body.items.map((a: { id: string }) => a.id)).not.toContain(created.body.id);

    for (const query of ['limit=0', 'limit=101', 'status=gone', 'cursor=not-a-cursor', 'extra=1']) {
      const res = await client.get(`/api/admin/admins?${query}`, root);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code: 'VALIDATION_FAILED' });
    }
    expect((await client.get('/api/admin/admins', userToken())).status).toBe(401);
    expect((await client.post('/api/admin/admins', { username: uniqueUsername(), nickname: 'x', password: newPassword() })).status).toBe(401);
  });

  it('refuses a taken username with 409, also to two adding it at once, and anything outside the admin:create rules with 400', async () => {
    const taken = await addAdmin();
    const again = await client.post('/api/admin/admins', { username: taken.username, nickname: 'Other', password: newPassword() }, root);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');

    const racing = uniqueUsername('race');
    const results = await Promise.all(
      [1, 2, 3].map((i) => client.post('/api/admin/admins', { username: racing, nickname: `N${i}`, password: newPassword() }, root)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);

    const password = 'short-pw-1';
    const cases = [
      { body: { username: 'Upper_Case', nickname: 'x', password: newPassword() }, path: 'username' },
      { body: { username: 'ab', nickname: 'x', password: newPassword() }, path: 'username' },
      { body: { username: uniqueUsername(), nickname: ' ', password: newPassword() }, path: 'nickname' },
      { body: { username: uniqueUsername(), nickname: 'x', password }, path: 'password' },
      { body: { username: uniqueUsername(), nickname: 'x', password: 'p'.repeat(201) }, path: 'password' },
      { body: { username: uniqueUsername(), nickname: 'x', password: newPassword(), status: 'disabled' }, path: '(root)' },
    ];
    for (const { body, path } of cases) {
      const res = await client.post('/api/admin/admins', body, root);
      expect({ path, status: res.status, code: res.body.code, paths: res.body.errors.map((e: { path: string }) => e.path) }).toEqual({
        path,
        status: 400,
        code: 'VALIDATION_FAILED',
        paths: [path],
      });
      expect(JSON.stringify(res.body)).not.toContain(body.password);
    }
  });

  it('disabling an admin kills its tokens at once, refuses its login and stops it matching open uploads; enabling restores login but not the old tokens', async () => {
    const target = await addAdmin({ nickname: `客服-${randomBytes(3).toString('hex')}` });
    const tokens = [await loginToken(client, target.username, target.password), await loginToken(client, target.username, target.password)];
    expect((await upload(target.username)).status).toBe(201);
    expect((await upload(target.nickname)).status).toBe(201);

    /** `action` on the target by root, which must move it to `status`. */
    const move = async (action: 'disable' | 'enable', status: string) => {
      const res = await client.post(`/api/admin/admins/${target.id}/${action}`, {}, root);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: target.id, status });
    };
    const meWith = (token: string) => client.get('/api/admin/me', token);

    await move('disable', 'disabled');
    for (const token of tokens) expect(await meWith(token)).toMatchObject({ status: 403, body: { detail: 'this admin account is disabled' } });
    expect((await login(client, target.username, target.password)).status).toBe(403);
    expect((await login(client, target.username, 'wrong-password-123')).status).toBe(401);
    for (const name of [target.username, target.nickname]) {
      const res = await upload(name);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('UPLOADER_NOT_MATCHED');
    }
    const sessions = await stack.services.admin!.ctx.db.query(`SELECT revoked_at FROM admin_sessions WHERE admin_id = $1`, [target.id]);
    expect(sessions).toHaveLength(2);
    expect(sessions.every((s: { revoked_at: Date | null }) => s.revoked_at !== null)).toBe(true);

    const twice = await client.post(`/api/admin/admins/${target.id}/disable`, {}, root);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('INVALID_STATE');

    await move('enable', 'active');
    for (const token of tokens) expect(await meWith(token)).toMatchObject({ status: 401, body: { code: 'TOKEN_REVOKED' } });
    const fresh = await loginToken(client, target.username, target.password);
    expect((await meWith(fresh)).status).toBe(200);
    expect((await upload(target.username)).status).toBe(201);
    const enabledTwice = await client.post(`/api/admin/admins/${target.id}/enable`, {}, root);
    expect(enabledTwice.status).toBe(409);
    expect(enabledTwice.body.code).toBe('INVALID_STATE');
  });

  it('nobody can disable themselves; an unknown or malformed id is 404 and a body with fields is 400', async () => {
    const me = (await client.get('/api/admin/me', root)).body;
    const self = await client.post(`/api/admin/admins/${me.id}/disable`, {}, root);
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject({ code: 'FORBIDDEN', detail: 'an admin cannot disable their own account' });
    expect((await client.get('/api/admin/me', root)).body.status).toBe('active');

    for (const action of ['disable', 'enable']) {
      for (const id of ['0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', 'not-a-uuid']) {
        const res = await client.post(`/api/admin/admins/${id}/${action}`, {}, root);
        expect({ action, id, status: res.status, code: res.body.code }).toEqual({ action, id, status: 404, code: 'NOT_FOUND' });
      }
      const target = await addAdmin();
      expect((await client.post(`/api/admin/admins/${target.id}/${action}`, { reason: 'x' }, root)).status).toBe(400);
    }
  });

  it('changing one’s password needs the current one, keeps the calling session, ends the others, and only the new one logs in', async () => {
    const admin = await addAdmin();
    const caller = await loginToken(client, admin.username, admin.password);
    const other = await loginToken(client, admin.username, admin.password);
    const replacement = newPassword();

    const wrong = await client.post('/api/admin/me/password', { current_password: 'not-the-password-1', new_password: replacement }, caller);
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe('CURRENT_PASSWORD_INCORRECT');
    const same = await client.post('/api/admin/me/password', { current_password: admin.password, new_password: admin.password }, caller);
    expect(same.status).toBe(400);
    expect(same.body.errors).toEqual([{ path: 'new_password', message: 'must differ from the current password' }]);
    const short = await client.post('/api/admin/me/password', { current_password: admin.password, new_password: 'short-pw-1' }, caller);
    expect(short.status).toBe(400);
    expect(short.body.errors.map((e: { path: string }) => e.path)).toEqual(['new_password']);
    expect(JSON.stringify(short.body)).not.toContain('short-pw-1');
    expect((await client.get('/api/admin/me', other)).status).toBe(200);

    const changed = await client.post('/api/admin/me/password', { current_password: admin.password, new_password: replacement }, caller);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: admin.id, status: 'active' });
    expect((await client.get('/api/admin/me', caller)).status).toBe(200);
    const ended = await client.get('/api/admin/me', other);
    expect(ended.status).toBe(401);
    expect(ended.body.code).toBe('TOKEN_REVOKED');
    expect((await login(client, admin.username, admin.password)).status).toBe(401);
    expect(await loginToken(client, admin.username, replacement)).toEqual(expect.any(String));
    expect((await client.post('/api/admin/me/password', { current_password: replacement, new_password: newPassword() })).status).toBe(401);
  });

  it('wrong current passwords count as failed logins of that username and lead to the same lockout', async () => {
    const admin = await addAdmin();
    const token = await loginToken(client, admin.username, admin.password);
    for (let i = 0; i < MAX_FAILURES; i++) {
      const res = await client.post('/api/admin/me/password', { current_password: `wrong-password-${i}`, new_password: newPassword() }, token);
      expect(res.status).toBe(422);
    }
    const locked = await client.post('/api/admin/me/password', { current_password: admin.password, new_password: newPassword() }, token);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect((await login(client, admin.username, admin.password)).status).toBe(429);
  });

  it('audits every account change with the acting admin, and no password reaches the audit log', async () => {
    const me = (await client.get('/api/admin/me', root)).body;
    const target = await addAdmin();
    const token = await loginToken(client, target.username, target.password);
    const replacement = newPassword();
    expect((await client.post('/api/admin/me/password', { current_password: target.password, new_password: replacement }, token)).status).toBe(200);
    expect((await client.post(`/api/admin/admins/${target.id}/disable`, {}, root)).status).toBe(200);
    expect((await client.post(`/api/admin/admins/${target.id}/enable`, {}, root)).status).toBe(200);

    const entries = await eventually(async () => {
      const res = await client.get(`/api/admin/audit-logs?biz_type=admin_user&limit=100`, root);
      const mine = res.body.items.filter((e: { biz_id: string; action: string }) => e.biz_id === target.id && e.action !== 'admin.login');
      return mine.length >= 4 ? mine : undefined;
    });
    const byAction = Object.fromEntries(entries.map((e: { action: string }) => [e.action, e]));
    expect(Object.keys(byAction).sort()).toEqual(['admin.password_change', 'admin_user.create', 'admin_user.disable', 'admin_user.enable']);
    for (const action of ['admin_user.create', 'admin_user.disable', 'admin_user.enable']) {
      expect(byAction[action]).toMatchObject({ actor_type: 'admin', actor_id: me.id, result: 'success' });
    }
    expect(byAction['admin.password_change']).toMatchObject({ actor_type: 'admin', actor_id: target.id, detail: { sessions_ended: 0 } });
    const text = JSON.stringify(entries);
    expect(text).not.toContain(target.password);
    expect(text).not.toContain(replacement);
  });

  it('logs in with captcha and password, shows the admin, and a logout kills the token on the next request', async () => {
    const admin = await newAdmin(stack, { nickname: '客服小艾' });
    const res = await login(client, admin.username, admin.password);
    expect(res.status).toBe(200);
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

  it('refuses the token of an admin disabled since it was issued with 403', async () => {
    const admin = await newAdmin(stack);
    const token = await loginToken(client, admin.username, admin.password);
    await stack.services.admin!.ctx.db.query(`UPDATE admin_users SET status = 'disabled' WHERE id = $1`, [admin.id]);
    expect((await client.get('/api/admin/me', token)).status).toBe(403);
  });

  it('refuses user tokens and missing tokens on admin routes, and an admin token on user routes', async () => {
    for (const path of ['/api/admin/me', '/api/admin/system-configs', '/api/admin/audit-logs', '/api/admin/dashboard']) {
      expect((await client.get(path, userToken())).status).toBe(401);
      expect((await client.get(path)).status).toBe(401);
    }
    expect((await client.post('/api/admin/auth/logout', undefined, userToken())).status).toBe(401);
    expect((await client.get('/api/me', root)).status).toBe(401);
  });

  /** An admin who manages admins resets another admin's password (what admin-password-reset.e2e held, on this stack now). */
  describe('resetting an admin’s password', () => {
    let manager: { id: string; token: string };

    beforeAll(async () => {
      const made = await newAdmin(stack, { roles: ['super_admin'] });
      manager = { id: made.id, token: await loginToken(client, made.username, made.password) };
    });

    it('sets the new password, ends every session of the admin at once and is audited without the password', async () => {
      const target = await newAdmin(stack, { roles: ['reviewer'] });
      const sessions = [await loginToken(client, target.username, target.password), await loginToken(client, target.username, target.password)];
      for (const token of sessions) expect((await client.get('/api/admin/me', token)).status).toBe(200);

      const password = newPassword();
      const reset = await client.post(`/api/admin/admins/${target.id}/password`, { password }, manager.token);
      expect(reset.status).toBe(204);

      for (const token of sessions) expect((await client.get('/api/admin/me', token)).status).toBe(401);
      expect((await login(client, target.username, target.password)).status).toBe(401);
      expect(await loginToken(client, target.username, password)).toEqual(expect.any(String));
      // The manager's own session is untouched.
      expect((await client.get('/api/admin/me', manager.token)).status).toBe(200);

      const entries = await eventually(
        async () => (await client.get(`/api/admin/audit-logs?action=admin_user.reset_password&biz_type=admin_user`, manager.token)).body.items,
        (items: Array<{ biz_id: string }>) => items.some((e) => e.biz_id === target.id),
      );
      const entry = entries.find((e: { biz_id: string }) => e.biz_id === target.id);
      expect(entry).toMatchObject({ actor_id: manager.id, detail: { username: target.username, sessions_ended: 2 } });
      expect(JSON.stringify(entry)).not.toContain(password);
    });

    it('refuses an admin without admins.manage, and anyone on their own account', async () => {
      const target = await newAdmin(stack, { roles: ['reviewer'] });
      const auditor = await newAdmin(stack, { roles: ['auditor'] });
      const auditorToken = await loginToken(client, auditor.username, auditor.password);
      const refused = await client.post(`/api/admin/admins/${target.id}/password`, { password: newPassword() }, auditorToken);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');

      const own = await client.post(`/api/admin/admins/${manager.id}/password`, { password: newPassword() }, manager.token);
      expect(own.status).toBe(403);
      expect(own.body).toMatchObject({ code: 'FORBIDDEN', detail: expect.stringContaining('/api/admin/me/password') });
      // Neither refusal changed a password.
      expect(await loginToken(client, target.username, target.password)).toEqual(expect.any(String));
    });

    it('checks the password by the rules of creation, and answers 404 for no such admin', async () => {
      const target = await newAdmin(stack, { roles: ['reviewer'] });
      const tooShort = await client.post(`/api/admin/admins/${target.id}/password`, { password: 'short' }, manager.token);
      expect(tooShort.status).toBe(400);
      expect(tooShort.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ path: 'password', message: 'must be at least 12 characters' })] });
      for (const body of [{}, { password: newPassword(), extra: 1 }, { password: 'x'.repeat(201) }]) {
        expect((await client.post(`/api/admin/admins/${target.id}/password`, body, manager.token)).status).toBe(400);
      }
      expect(await loginToken(client, target.username, target.password)).toEqual(expect.any(String));

      const missing = await client.post(`/api/admin/admins/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b/password`, { password: newPassword() }, manager.token);
      expect(missing.status).toBe(404);
      // as every admin route by id: an id that cannot be one names no admin
      expect((await client.post(`/api/admin/admins/not-an-id/password`, { password: newPassword() }, manager.token)).status).toBe(404);
    });
  });
});
