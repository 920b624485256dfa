import { api, startStack, type Stack } from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { eventually, loginToken, newAdmin, type Client } from './helpers';

describe('dashboard with identity and catalog running', () => {
  let stack: Stack;
  let client: Client;
  let token: string;

  beforeAll(async () => {
    stack = await startStack({ services: ['admin', 'identity', 'catalog'] });
    client = api(stack.url);
    token = await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD);
  });
  afterAll(() => stack.stop());

  async function phoneUser(phone: string): Promise<{ token: string; id: string }> {
    const sent = await client.post('/api/auth/sms/send', { phone });
    expect(sent.status).toBe(200);
    const res = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
    expect(res.status).toBe(200);
    return { token: res.body.access_token, id: res.body.user.id };
  }

  it('shows real figures from identity, catalog and the admin table', async () => {
    const before = await client.get('/api/admin/dashboard', token);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ users_total: 0, users_today: 0, users_frozen: 0, admins_total: 1, listings_pending_review: 0 });

    const { token: seller } = await phoneUser('13800138001');
    const other = await phoneUser('13800138002');
    expect((await client.post(`/api/admin/users/${other.id}/freeze`, { reason: 'dashboard test' }, token)).status).toBe(200);
    await newAdmin(stack);
    const listing = { title: 'Dashboard test account', game: 'Test Game', hourly_price: 500, deposit: 1000 };
    const draft = await client.post('/api/listings', listing, seller);
    expect(draft.status).toBe(201);
    const pending = await client.post('/api/listings', { ...listing, title: 'Second account' }, seller);
    expect((await client.post(`/api/listings/${pending.body.id}/submit-review`, {}, seller)).status).toBe(200);

    const after = await client.get('/api/admin/dashboard', token);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({
      users_total: 2,
      users_today: 2,
      users_frozen: 1,
      admins_total: 2,
      listings_pending_review: 1,
    });
    expect(after.body.listings_by_status.draft).toBe(2);
  });

  it("stores other services' audit entries: identity's freeze appears in the audit log", async () => {
    const user = await phoneUser('13800138003');
    const me = (await client.get('/api/admin/me', token)).body;
    expect((await client.post(`/api/admin/users/${user.id}/freeze`, { reason: 'audit test' }, token)).status).toBe(200);
    const entry = await eventually(async () => {
      const res = await client.get(`/api/admin/audit-logs?actor_id=${me.id}`, token);
      return res.body.items.find((e: { biz_id: string }) => e.biz_id === user.id);
    });
    expect(entry).toMatchObject({ actor_type: 'admin', actor_id: me.id, result: 'success' });
  });
});
