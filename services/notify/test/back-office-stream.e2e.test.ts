import { v7 as uuidv7 } from 'uuid';
import type { EventData } from '@market/contracts';
import { api, eventually, mintToken, newAdmin, publishEvent, stackPerSuite, startStack, type Stack } from '@market/testkit';
import { eventHandled, listingSnapshot, msUntilEnded, newUser, SseClient, streamsClosedAfterEach, type Caller } from './support';

/**
 * The back office's live stream through the gateway: what the console's header badges follow. It
 * carries the review queue's and the disputes' changes as catalog and orders publish them, and it
 * ends with the admin's session like a user's stream (ADR 0034). The heartbeat is set far beyond
 * every wait, so only the revocation channel and the token's expiry can end these streams in time.
 */
const HEARTBEAT_MS = 120_000;
const PROMPTLY_MS = 2000;
const STREAM = '/api/admin/notifications/stream';

describe('the back office’s live stream', () => {
  const own = stackPerSuite({ services: ['notify', 'catalog', 'admin'], serviceEnv: { notify: { NOTIFY_HEARTBEAT_MS: String(HEARTBEAT_MS) } } }, 60_000);
  const openStream = streamsClosedAfterEach();

  const open = (token: string, headers: Record<string, string> = {}) => openStream(`${own.stack.url}${STREAM}`, token, headers);
  const endsPromptly = (stream: SseClient) => msUntilEnded(stream, PROMPTLY_MS);
  /** A listing of `owner` created and submitted for review through the gateway, in the real catalog: its id. */
  const submittedListing = async (owner: Caller): Promise<string> => {
    const created = await own.client.post(
      '/api/listings',
      { title: '和平精英 战神', game: '和平精英', hourly_price: 600, min_hours: 1, max_hours: 12, deposit: 3000 },
      owner.token,
    );
    expect(created.status).toBe(201);
    expect((await own.client.post(`/api/listings/${created.body.id}/submit-review`, {}, owner.token)).status).toBe(200);
    return created.body.id;
  };
  const kinds = (stream: SseClient) => stream.notifications().map((n) => n.kind as string);

  const dispute = (): EventData<'dispute.opened'> => {
    const [renter, owner] = [newUser(), newUser()];
    return { dispute_id: uuidv7(), order_id: uuidv7(), renter_id: renter.id, owner_id: owner.id, type: 'handoff', raised_by: renter.id, reason: '账号无法登录' };
  };

  it('tells every admin who sees the dashboard of a listing submitted for review and its approval, in the real catalog', async () => {
    const reviewer = await newAdmin(own.stack, ['reviewer']);
    const finance = await newAdmin(own.stack, ['finance']);
    const [reviewers, finances] = [await open(reviewer.token), await open(finance.token)];
    expect(reviewers.status).toBe(200);
    expect(reviewers.headers!.get('content-type')).toBe('text/event-stream; charset=utf-8');

    const owner = newUser();
    const listingId = await submittedListing(owner);
    await eventually(async () => kinds(reviewers), (k) => k.includes('listing.submitted'), 5000);
    expect(reviewers.notifications()[0]).toMatchObject({
      user_id: 'back-office',
      kind: 'listing.submitted',
      biz_type: 'listing',
      biz_id: listingId,
      data: { listing_id: listingId, review_status: 'pending' },
    });
    expect(reviewers.events[0]).toMatchObject({ event: 'notification', id: expect.stringMatching(/^\d+$/) });

    expect((await own.client.post(`/api/admin/listings/${listingId}/approve`, {}, reviewer.token)).status).toBe(200);
    await eventually(async () => kinds(reviewers), (k) => k.includes('listing.approved'), 5000);
    await eventually(async () => kinds(finances), (k) => k.length === 2, 5000);
    expect(kinds(finances)).toEqual(['listing.submitted', 'listing.approved']);
  });

  it('tells of a dispute opened and resolved, replays what a reconnecting console missed, and keeps them out of the alerts list', async () => {
    const support = await newAdmin(own.stack, ['customer_service']);
    const first = await open(support.token);
    const opened = dispute();
    await publishEvent(own.stack, 'dispute.opened', opened);
    await eventually(async () => first.notifications().length, (n) => n === 1, 5000);
    expect(first.notifications()[0]).toMatchObject({ kind: 'dispute.opened', body: '账号无法登录', data: { dispute_id: opened.dispute_id, order_id: opened.order_id } });
    const seen = first.lastEventId()!;
    await first.close();

    const resolved = await publishEvent(own.stack, 'dispute.resolved', {
      dispute_id: opened.dispute_id,
      order_id: opened.order_id,
      renter_id: opened.renter_id,
      owner_id: opened.owner_id,
      result: 'close',
      note: '已退款',
      resolved_by: support.id,
    });
    await eventHandled(own.stack, resolved.id);
    const resumed = await open(support.token, { 'last-event-id': seen });
    await eventually(async () => resumed.notifications().length, (n) => n >= 1, 5000);
    expect(resumed.notifications()[0]).toMatchObject({ kind: 'dispute.resolved', data: { dispute_id: opened.dispute_id } });
    expect(Number(resumed.events[0]!.id)).toBeGreaterThan(Number(seen));

    const alerts = await own.client.get('/api/admin/notifications?limit=100', support.token);
    expect(alerts.status).toBe(200);
    expect(alerts.body.items.filter((n: { kind: string }) => n.kind !== 'ops.alert')).toEqual([]);
  });

  it('says nothing of listing moves that leave the review queue as it was', async () => {
    const reviewer = await newAdmin(own.stack, ['reviewer']);
    const stream = await open(reviewer.token);
    const owner = newUser();
    const snapshot = (status: 'draft' | 'deleted', review_status: 'none' | 'pending'): EventData<'listing.deleted'> =>
      listingSnapshot(owner, { status, review_status });
    const quiet = await publishEvent(own.stack, 'listing.deleted', snapshot('deleted', 'none'));
    await eventHandled(own.stack, quiet.id);
    const left = snapshot('deleted', 'pending');
    await publishEvent(own.stack, 'listing.deleted', left);
    await eventually(async () => stream.notifications().length, (n) => n === 1, 5000);
    expect(stream.notifications()[0]).toMatchObject({ kind: 'listing.deleted', biz_id: left.listing_id });
  });

  it('is refused to a user, to an admin without the dashboard, and without a token', async () => {
    const user = await open(newUser().token);
    expect(user.status).toBe(401);
    const roleless = await open((await newAdmin(own.stack, [])).token);
    expect(roleless.status).toBe(403);
    expect(roleless.problem).toMatchObject({ code: 'FORBIDDEN' });
    const anonymous = await fetch(`${own.stack.url}${STREAM}`);
    expect(anonymous.status).toBe(401);
  });

  it('ends at once on logout, and only the stream of that session', async () => {
    const admin = await newAdmin(own.stack, ['reviewer']);
    const other = await newAdmin(own.stack, ['reviewer']);
    const [stream, others] = [await open(admin.token), await open(other.token)];
    expect(stream.status).toBe(200);
    expect((await own.client.post('/api/admin/auth/logout', {}, admin.token)).status).toBe(204);
    expect(await endsPromptly(stream)).toBeLessThan(PROMPTLY_MS);
    expect(others.ended).toBe(false);
    expect((await open(admin.token)).status).toBe(401);
  });

  it('ends at once when the admin is disabled or its password reset by another admin', async () => {
    const manager = await newAdmin(own.stack, ['super_admin']);
    const disabled = await newAdmin(own.stack, ['reviewer']);
    const reset = await newAdmin(own.stack, ['reviewer']);
    const [disabledStream, resetStream] = [await open(disabled.token), await open(reset.token)];
    expect((await own.client.post(`/api/admin/admins/${disabled.id}/disable`, {}, manager.token)).status).toBe(200);
    expect(await endsPromptly(disabledStream)).toBeLessThan(PROMPTLY_MS);
    expect(resetStream.ended).toBe(false);
    expect((await own.client.post(`/api/admin/admins/${reset.id}/password`, { password: 'a new password 1' }, manager.token)).status).toBe(204);
    expect(await endsPromptly(resetStream)).toBeLessThan(PROMPTLY_MS);
  });

  it('ends at once when the admin’s roles no longer hold the dashboard, not at the heartbeat, and goes on through a change that keeps it', async () => {
    const manager = await newAdmin(own.stack, ['super_admin']);
    const reviewer = await newAdmin(own.stack, ['reviewer']);
    const stream = await open(reviewer.token);
    expect(stream.status).toBe(200);
    expect((await own.client.put(`/api/admin/admins/${reviewer.id}/roles`, { roles: ['finance'] }, manager.token)).status).toBe(200);
    // the recheck the change announced found the dashboard still held: a stream the server ended
    // would show as ended by the time a second change is answered
    expect((await own.client.put(`/api/admin/admins/${reviewer.id}/roles`, { roles: ['finance', 'reviewer'] }, manager.token)).status).toBe(200);
    expect((await open(reviewer.token)).status).toBe(200);
    expect(stream.ended).toBe(false);
    expect((await own.client.put(`/api/admin/admins/${reviewer.id}/roles`, { roles: [] }, manager.token)).status).toBe(200);
    expect(await endsPromptly(stream)).toBeLessThan(PROMPTLY_MS);
    expect((await open(reviewer.token)).status).toBe(403);
  });

  it('ends when its access token expires', async () => {
    const admin = await newAdmin(own.stack, ['reviewer']);
    const stream = await open(mintToken('admin', admin.id, admin.sid, 2));
    expect(stream.status).toBe(200);
    await stream.untilEnded(4000);
  });

  // On this stack because it has the real catalog: the one notification flow that crosses services
  // (how notify builds and serves notifications alone is in test/component/notifications.test.ts).
  it('tells the owner when the back office approves their listing in the real catalog', async () => {
    const owner = newUser();
    const { token: adminToken } = await newAdmin(own.stack, ['reviewer']);
    const listingId = await submittedListing(owner);
    expect((await own.client.post(`/api/admin/listings/${listingId}/approve`, {}, adminToken)).status).toBe(200);
    const { body } = await eventually(
      () => own.client.get('/api/notifications', owner.token),
      (res) => res.status === 200 && res.body.items.length === 1,
    );
    expect(body.items[0]).toMatchObject({ kind: 'listing.approved', biz_type: 'listing', biz_id: listingId, body: '「和平精英 战神」已通过审核并上架。' });
  });
});

describe('the back office’s live stream and the admin’s roles', () => {
  const BEAT_MS = 300;
  let stack: Stack;
  let client: ReturnType<typeof api>;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    stack = await startStack({ services: ['notify', 'admin'], serviceEnv: { notify: { NOTIFY_HEARTBEAT_MS: String(BEAT_MS) } } });
    client = api(stack.url);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(streams.splice(0).map((s) => s.close()));
    await stack?.stop();
  });

  it('ends at the next heartbeat once the admin no longer holds the dashboard, and only then', async () => {
    const manager = await newAdmin(stack, ['super_admin']);
    const reviewer = await newAdmin(stack, ['reviewer']);
    const stream = await SseClient.open(`${stack.url}${STREAM}`, reviewer.token);
    streams.push(stream);
    expect(stream.status).toBe(200);
    // Another role that still sees the dashboard keeps the stream open.
    expect((await client.put(`/api/admin/admins/${reviewer.id}/roles`, { roles: ['finance'] }, manager.token)).status).toBe(200);
    await eventually(async () => stream.comments.length, (n) => n >= 3, 5000);
    expect(stream.ended).toBe(false);
    expect((await client.put(`/api/admin/admins/${reviewer.id}/roles`, { roles: [] }, manager.token)).status).toBe(200);
    await stream.untilEnded(BEAT_MS * 5);
  });
});
