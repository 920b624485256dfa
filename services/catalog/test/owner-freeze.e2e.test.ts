import { listingById, type EventData } from '@market/contracts';
import { api, internalClientAs, startStack, type Stack } from '@market/testkit';
import { eventHandled, listingBody, newAdmin, newUser, outboxEvents, publishEvent, type Caller } from './support';

describe('frozen owners', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  let admin: Caller;

  beforeAll(async () => {
    stack = await startStack({ services: ['catalog', 'admin'] });
    client = api(stack.url);
    admin = await newAdmin(stack);
  });
  afterAll(() => stack?.stop());

  const handled = (eventId: string) => eventHandled(stack, eventId);

  const freeze = async (owner: Caller, at = new Date()) => {
    const data: EventData<'user.frozen'> = { user_id: owner.id, reason: 'fraud', frozen_by: admin.id, frozen_at: at.toISOString() };
    await handled((await publishEvent(stack, 'user.frozen', data)).id);
  };
  const unfreeze = async (owner: Caller, at = new Date()) => {
    const data: EventData<'user.unfrozen'> = { user_id: owner.id, unfrozen_by: admin.id, unfrozen_at: at.toISOString() };
    await handled((await publishEvent(stack, 'user.unfrozen', data)).id);
  };

  async function pending(owner: Caller) {
    const created = await client.post('/api/listings', listingBody(), owner.token);
    expect(created.status).toBe(201);
    expect((await client.post(`/api/listings/${created.body.id}/submit-review`, {}, owner.token)).status).toBe(200);
    return created.body.id as string;
  }

  async function online(owner: Caller) {
    const id = await pending(owner);
    expect((await client.post(`/api/admin/listings/${id}/approve`, {}, admin.token)).status).toBe(200);
    return id;
  }

  const state = async (id: string) => {
    const { status, review_status } = (await client.get(`/api/admin/listings/${id}`, admin.token)).body;
    return `${status}/${review_status}`;
  };

  /** What renters and orders can see of the listing: the public detail, the search, the internal view. */
  async function renterReach(id: string) {
    const detail = await client.get(`/api/listings/${id}`);
    const search = await client.get('/api/listings?limit=100');
    const internal = await internalClientAs(stack, 'orders').call(listingById, { params: { id } });
    return {
      detail: detail.status,
      inSearch: search.body.items.some((l: any) => l.id === id),
      internalStatus: internal.status,
    };
  }

  it('refuses to approve a frozen owner’s listing under review with 409 OWNER_FROZEN, and approves it after the unfreeze', async () => {
    const owner = newUser();
    const id = await pending(owner);
    await freeze(owner);

    const refused = await client.post(`/api/admin/listings/${id}/approve`, {}, admin.token);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('OWNER_FROZEN');
    expect(await state(id)).toBe('draft/pending');
    expect(await renterReach(id)).toEqual({ detail: 404, inSearch: false, internalStatus: 'draft' });
    expect(await outboxEvents(stack, 'listing.approved', id)).toHaveLength(0);

    await unfreeze(owner);
    expect((await client.post(`/api/admin/listings/${id}/approve`, {}, admin.token)).status).toBe(200);
    expect(await renterReach(id)).toEqual({ detail: 200, inSearch: true, internalStatus: 'online' });
  });

  it('still lets the back office reject or mark abnormal a frozen owner’s listings', async () => {
    const owner = newUser();
    const [a, b] = [await pending(owner), await pending(owner)];
    await freeze(owner);
    expect((await client.post(`/api/admin/listings/${a}/reject`, { reason: 'no' }, admin.token)).status).toBe(200);
    expect((await client.post(`/api/admin/listings/${b}/mark-abnormal`, { reason: 'fraud' }, admin.token)).status).toBe(200);
  });

  it('takes every online listing out of renters’ reach and brings back exactly those on unfreeze', async () => {
    const owner = newUser();
    const [kept, markedMeanwhile, offlinedBefore] = [await online(owner), await online(owner), await online(owner)];
    const underReview = await pending(owner);
    expect((await client.post(`/api/admin/listings/${offlinedBefore}/offline`, { reason: 'old photos' }, admin.token)).status).toBe(200);
    const bystander = await online(newUser());

    await freeze(owner);
    for (const id of [kept, markedMeanwhile, offlinedBefore]) {
      expect(await renterReach(id)).toEqual({ detail: 404, inSearch: false, internalStatus: 'offline' });
    }
    expect(await state(underReview)).toBe('draft/pending');
    expect(await renterReach(bystander)).toEqual({ detail: 200, inSearch: true, internalStatus: 'online' });
    expect((await outboxEvents(stack, 'listing.offlined', kept)).map((e) => e.data.reason)).toEqual(['owner frozen']);
    expect((await client.post(`/api/admin/listings/${markedMeanwhile}/mark-abnormal`, { reason: 'stolen' }, admin.token)).status).toBe(200);

    await unfreeze(owner);
    expect(await renterReach(kept)).toEqual({ detail: 200, inSearch: true, internalStatus: 'online' });
    expect(await state(kept)).toBe('online/approved');
    expect(await state(markedMeanwhile)).toBe('abnormal/approved');
    expect(await state(offlinedBefore)).toBe('offline/approved');
    expect(await state(underReview)).toBe('draft/pending');
    const restored = await outboxEvents(stack, 'listing.restored', kept);
    expect(restored.map((e) => [e.data.status, e.data.reason])).toEqual([['online', 'owner unfrozen']]);
    for (const id of [markedMeanwhile, offlinedBefore, underReview]) expect(await outboxEvents(stack, 'listing.restored', id)).toHaveLength(0);

    // a second unfreeze (another admin, a replay) finds nothing held any more
    await unfreeze(owner, new Date(Date.now() + 1000));
    expect(await outboxEvents(stack, 'listing.restored', kept)).toHaveLength(1);
  });

  it('lets a late, older freeze change nothing once a newer unfreeze is applied', async () => {
    const owner = newUser();
    const id = await online(owner);
    const frozenAt = new Date(Date.now() - 60_000);
    await unfreeze(owner, new Date(Date.now() - 30_000));
    await freeze(owner, frozenAt);
    expect(await state(id)).toBe('online/approved');
    expect(await outboxEvents(stack, 'listing.offlined', id)).toHaveLength(0);

    const second = await pending(owner);
    expect((await client.post(`/api/admin/listings/${second}/approve`, {}, admin.token)).status).toBe(200);
  });

  it('never leaves a listing online when approvals race the owner’s freeze', async () => {
    const owner = newUser();
    const ids = await Promise.all(Array.from({ length: 12 }, () => pending(owner)));
    const data: EventData<'user.frozen'> = { user_id: owner.id, reason: 'fraud', frozen_by: admin.id, frozen_at: new Date().toISOString() };
    const [event, ...approvals] = await Promise.all([
      publishEvent(stack, 'user.frozen', data),
      ...ids.map((id) => client.post(`/api/admin/listings/${id}/approve`, {}, admin.token)),
    ]);
    await handled(event.id);
    for (const res of approvals) expect([200, 409]).toContain(res.status);
    for (const res of approvals.filter((r) => r.status === 409)) expect(res.body.code).toBe('OWNER_FROZEN');
    const states = await Promise.all(ids.map(state));
    expect(states.filter((s) => s.startsWith('online'))).toEqual([]);
    // every approval that won was taken offline by the freeze and is held for the unfreeze
    expect(states.filter((s) => s === 'offline/approved')).toHaveLength(approvals.filter((r) => r.status === 200).length);
  });
});
