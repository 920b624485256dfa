import { randomBytes } from 'node:crypto';
import { permissionsOf } from '@market/contracts';
import { api, mintToken, startStack, type Stack } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { eventually, loginToken, uniqueUsername, type Client } from './helpers';

/** Roles and permissions of back-office admins, through the gateway (ADR 0033, 0034). */
describe('admin roles', () => {
  let stack: Stack;
  let client: Client;
  let root: string;
  let rootId: string;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin'] });
    client = api(stack.url);
    root = await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD);
    rootId = (await client.get('/api/admin/me', root)).body.id;
  });
  afterAll(() => stack.stop());

  const addAdmin = async (roles: string[]) => {
    const username = uniqueUsername('role');
    const password = `pw-${randomBytes(10).toString('hex')}`;
    const res = await client.post('/api/admin/admins', { username, nickname: username, password, roles }, root);
    expect(res.status).toBe(201);
    return { id: res.body.id as string, username, token: await loginToken(client, username, password) };
  };

  it('the bootstrap admin is a super admin, and /me tells the console its roles and permissions', async () => {
    const me = await client.get('/api/admin/me', root);
    expect(me.status).toBe(200);
    expect(me.body.roles).toEqual(['super_admin']);
    expect(me.body.permissions).toEqual(expect.arrayContaining(['admins.manage', 'configs.manage', 'handoffs.reveal']));
  });

  it('a reviewer reads listings but neither configs, the audit log nor admins, and sees only its permissions', async () => {
    const reviewer = await addAdmin(['reviewer']);
    const me = await client.get('/api/admin/me', reviewer.token);
    expect(me.body).toMatchObject({ roles: ['reviewer'], permissions: permissionsOf(['reviewer']) });
    for (const path of ['/api/admin/system-configs', '/api/admin/audit-logs', '/api/admin/admins']) {
      const res = await client.get(path, reviewer.token);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect((await client.put('/api/admin/system-configs/order.payment_timeout_minutes', { value: 20 }, reviewer.token)).status).toBe(403);
    expect((await client.post('/api/admin/admins', { username: uniqueUsername(), nickname: 'x', password: 'p'.repeat(12) }, reviewer.token)).status).toBe(403);
  });

  it('an admin may hold several roles; a role change is audited and applies on the holder’s next request', async () => {
    const admin = await addAdmin(['reviewer']);
    expect((await client.get('/api/admin/audit-logs', admin.token)).status).toBe(403);

    const changed = await client.put(`/api/admin/admins/${admin.id}/roles`, { roles: ['reviewer', 'auditor'] }, root);
    expect(changed.status).toBe(200);
    expect(changed.body.roles).toEqual(['reviewer', 'auditor']);
    // The same token, no new login.
    expect((await client.get('/api/admin/audit-logs', admin.token)).status).toBe(200);
    expect((await client.put('/api/admin/system-configs/order.payment_timeout_minutes', { value: 20 }, admin.token)).status).toBe(403);

    const audit = await eventually(async () => {
      const res = await client.get(`/api/admin/audit-logs?action=admin_user.set_roles&biz_type=admin_user`, root);
      return res.body.items.find((entry: any) => entry.biz_id === admin.id);
    });
    expect(audit).toMatchObject({ actor_type: 'admin', actor_id: rootId, result: 'success', detail: { before: ['reviewer'], after: ['reviewer', 'auditor'] } });

    expect((await client.put(`/api/admin/admins/${admin.id}/roles`, { roles: [] }, root)).status).toBe(200);
    expect((await client.get('/api/admin/audit-logs', admin.token)).status).toBe(403);
    expect((await client.get('/api/admin/me', admin.token)).body).toMatchObject({ roles: [], permissions: [] });
  });

  it('only a super admin changes roles, nobody their own, and bad role lists are 400 changing nothing', async () => {
    const auditor = await addAdmin(['auditor']);
    const target = await addAdmin(['reviewer']);
    expect((await client.put(`/api/admin/admins/${target.id}/roles`, { roles: ['super_admin'] }, auditor.token)).status).toBe(403);
    expect((await client.put(`/api/admin/admins/${auditor.id}/roles`, { roles: ['super_admin'] }, auditor.token)).status).toBe(403);
    const self = await client.put(`/api/admin/admins/${rootId}/roles`, { roles: ['reviewer'] }, root);
    expect(self.status).toBe(403);
    for (const roles of [['owner'], ['reviewer', 'reviewer'], 'reviewer']) {
      const res = await client.put(`/api/admin/admins/${target.id}/roles`, { roles }, root);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await client.put(`/api/admin/admins/00000000-0000-7000-8000-000000000000/roles`, { roles: [] }, root)).status).toBe(404);
    expect((await client.get('/api/admin/me', target.token)).body.roles).toEqual(['reviewer']);
    expect((await client.get('/api/admin/me', root)).body.roles).toEqual(['super_admin']);
  });

  it('two super admins taking each other’s role at once: exactly one wins, a super admin remains', async () => {
    const a = await addAdmin(['super_admin']);
    const b = await addAdmin(['super_admin']);
    // Leave only a and b as super admins, so the race decides who keeps the role.
    expect((await client.put(`/api/admin/admins/${rootId}/roles`, { roles: ['auditor'] }, a.token)).status).toBe(200);
    const [ab, ba] = await Promise.all([
      client.put(`/api/admin/admins/${b.id}/roles`, { roles: [] }, a.token),
      client.put(`/api/admin/admins/${a.id}/roles`, { roles: [] }, b.token),
    ]);
    const statuses = [ab.status, ba.status].sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const winner = ab.status === 200 ? a : b;
    expect((await client.get('/api/admin/me', winner.token)).body.roles).toEqual(['super_admin']);
    expect((await client.put(`/api/admin/admins/${rootId}/roles`, { roles: ['super_admin'] }, winner.token)).status).toBe(200);
  });

  it('a token signed with the right secret but for a session the admin service never opened is refused', async () => {
    // The subject is a real, active admin: only the session is made up.
    const forged = mintToken('admin', rootId);
    const res = await client.get('/api/admin/me', forged);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHENTICATED');
    // A real session id of one admin does not open another admin's account.
    const reviewer = await addAdmin(['reviewer']);
    const { sid } = JSON.parse(Buffer.from(reviewer.token.split('.')[1]!, 'base64url').toString());
    expect((await client.get('/api/admin/admins', mintToken('admin', rootId, sid))).status).toBe(401);
  });
});

