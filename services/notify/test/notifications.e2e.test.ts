import { api, eventually, newAdmin, startStack, type Stack } from '@market/testkit';
import { newUser } from './support';

/**
 * What crosses services: a listing the real catalog approves reaches its owner as a notification,
 * and the gateway lets no tokenless caller at notifications. How notify builds, reads and marks
 * notifications alone is proven in test/component/notifications.test.ts (ADR 0058).
 */
describe('notifications through the gateway', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    stack = await startStack({ services: ['notify', 'catalog', 'admin'] });
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  it('tells the owner when the back office approves their listing in the real catalog', async () => {
    const owner = newUser();
    const { token: adminToken } = await newAdmin(stack, ['reviewer']);
    const created = await client.post(
      '/api/listings',
      { title: '和平精英 战神', game: '和平精英', hourly_price: 600, min_hours: 1, max_hours: 12, deposit: 3000 },
      owner.token,
    );
    expect(created.status).toBe(201);
    expect((await client.post(`/api/listings/${created.body.id}/submit-review`, {}, owner.token)).status).toBe(200);
    expect((await client.post(`/api/admin/listings/${created.body.id}/approve`, {}, adminToken)).status).toBe(200);
    const { body } = await eventually(
      () => client.get('/api/notifications', owner.token),
      (res) => res.status === 200 && res.body.items.length === 1,
    );
    expect(body.items[0]).toMatchObject({ kind: 'listing.approved', biz_type: 'listing', biz_id: created.body.id, body: '「和平精英 战神」已通过审核并上架。' });
  });

  it('refuses callers without a user token', async () => {
    expect((await client.get('/api/notifications')).status).toBe(401);
    expect((await client.post('/api/notifications/read-all', {})).status).toBe(401);
    expect((await client.get('/api/notifications/stream')).status).toBe(401);
    expect((await client.get('/api/admin/notifications', newUser().token)).status).toBe(401);
  });
});
