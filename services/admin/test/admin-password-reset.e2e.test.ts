import { randomBytes } from 'node:crypto';
import { api, startStack, type Stack } from '@market/testkit';
import { eventually, login, loginToken, newAdmin, type Client } from './helpers';

const newPassword = () => `pw-${randomBytes(10).toString('hex')}`;

/** An admin who manages admins resets another admin's password, through the gateway. */
describe('resetting an admin’s password', () => {
  let stack: Stack;
  let client: Client;
  let manager: { id: string; token: string };

  beforeAll(async () => {
    stack = await startStack({ services: ['admin'] });
    client = api(stack.url);
    const made = await newAdmin(stack, { roles: ['super_admin'] });
    manager = { id: made.id, token: await loginToken(client, made.username, made.password) };
  });
  afterAll(() => stack.stop());

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
