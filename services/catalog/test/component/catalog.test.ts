import { v7 as uuidv7 } from 'uuid';
import {
  adminApproveListing,
  adminOfflineListing,
  adminListListings,
  confirmListingRotation,
  createListing,
  fileMeta,
  getListing,
  listListings,
  listingById,
  listSellerListings,
  submitListingForReview,
  updateListing,
} from '@market/contracts';
import { answer, asAdmin, asUser, eventually, orderEventData, ORDER_SETTLEMENT, refuse, startComponent, type Component } from '@market/testkit';
import { RemoteRefusal } from '@market/shared/http';

const listingBody = (overrides: Record<string, unknown> = {}) => ({
  title: '王者荣耀 荣耀王者 全英雄',
  game: '王者荣耀',
  hourly_price: 800,
  min_hours: 1,
  max_hours: 24,
  deposit: 5000,
  ...overrides,
});

/** What the files service holds, by key: a scene per file. */
const files = new Map<string, 'listing' | 'avatar' | 'handoff' | 'dispute'>();

describe('catalog alone, its neighbours faked at the contracts', () => {
  let catalog: Component;
  const admin = asAdmin();

  beforeAll(async () => {
    catalog = await startComponent('catalog', {
      answers: [
        answer(fileMeta, ({ query }) => {
          const scene = files.get(query.key);
          if (!scene) return refuse(404, 'NOT_FOUND');
          return { key: query.key, owner_id: uuidv7(), scene, content_type: 'image/png' as const, size: 68, sha256: 'a'.repeat(64), created_at: new Date().toISOString() };
        }),
      ],
    });
  });
  afterEach(() => catalog.verify());
  afterAll(() => catalog?.stop());

  async function online(owner = asUser(), body: Record<string, unknown> = {}) {
    const listing = await catalog.ok(createListing, { body: listingBody(body), as: owner });
    await catalog.ok(submitListingForReview, { params: { id: listing.id }, as: owner });
    await catalog.ok(adminApproveListing, { params: { id: listing.id }, as: admin });
    return listing.id;
  }

  const rented = async (id: string) => (await catalog.ok(getListing, { params: { id } })).rented;

  const orderData = (listingId: string, status: 'pending_payment' | 'cancelled' | 'completed') => orderEventData(status, { listing_id: listingId });

  it('takes a listing through review to online, publishing each move’s snapshot, and shows it to renters only once online', async () => {
    const owner = asUser();
    const draft = await catalog.ok(createListing, { body: listingBody(), as: owner });
    expect(draft).toMatchObject({ owner_id: owner.sub, status: 'draft', review_status: 'none', rented: false });
    expect((await catalog.call(getListing, { params: { id: draft.id } })).status).toBe(404);
    expect((await catalog.call(submitListingForReview, { params: { id: draft.id }, as: asUser() })).status).toBe(404);

    await catalog.ok(submitListingForReview, { params: { id: draft.id }, as: owner });
    const [submitted] = await catalog.awaitPublished('listing.submitted', (e) => e.data.listing_id === draft.id);
    expect(submitted!.data).toMatchObject({ owner_id: owner.sub, status: 'draft', review_status: 'pending', actor_id: owner.sub });

    const approved = await catalog.ok(adminApproveListing, { params: { id: draft.id }, as: admin });
    expect(approved).toMatchObject({ status: 'online', review_status: 'approved' });
    const [event] = await catalog.awaitPublished('listing.approved', (e) => e.data.listing_id === draft.id);
    expect(event!.data).toMatchObject({ status: 'online', review_status: 'approved', hourly_price: 800, deposit: 5000, actor_id: admin.sub });
    expect((await catalog.ok(getListing, { params: { id: draft.id } })).status).toBe('online');

    const again = await catalog.call(adminApproveListing, { params: { id: draft.id }, as: admin });
    expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(catalog.published('listing.approved', (e) => e.data.listing_id === draft.id)).toHaveLength(1);
  });

  it('asks files about each screenshot: a public file is taken, a private or unknown one refused by index, and a files outage is 503', async () => {
    const owner = asUser();
    const [shot, secret] = [uuidv7(), uuidv7()];
    files.set(shot, 'listing');
    files.set(secret, 'handoff');
    const url = (key: string) => `/api/files/object?key=${key}`;
    const taken = await catalog.ok(createListing, { body: listingBody({ screenshot_urls: [url(shot)] }), as: owner });
    expect(taken.screenshot_urls).toEqual([url(shot)]);
    expect(catalog.neighbours.calls(fileMeta).map((c) => c.input.query.key)).toContain(shot);

    const refused = await catalog.call(createListing, { body: listingBody({ screenshot_urls: [url(shot), url(secret), url(uuidv7())] }), as: owner });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { path: 'screenshot_urls.1', message: expect.stringContaining('not public') },
      { path: 'screenshot_urls.2', message: 'no such file' },
    ]);

    const restore = catalog.neighbours.answer(fileMeta, () => refuse(503, 'down'));
    const down = await catalog.call(createListing, { body: listingBody({ screenshot_urls: [url(shot)] }), as: owner }).finally(restore);
    expect([down.status, down.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
  });

  it('marks a listing rented from order.created, once however often it is delivered, and frees it when that order ends', async () => {
    const id = await online();
    const created = orderData(id, 'pending_payment');
    const first = await catalog.publish('order.created', created);
    await catalog.publish('order.created', created, first.id);
    await eventually(() => rented(id), (r) => r === true);
    // events are handled one at a time, in order: the end is taken after both deliveries of the start
    await catalog.publish('order.cancelled', { ...created, status: 'cancelled' });
    await eventually(() => rented(id), (r) => r === false);

    const next = orderData(id, 'pending_payment');
    await catalog.publish('order.created', next);
    await eventually(() => rented(id), (r) => r === true);
    await catalog.publish('order.completed', { ...next, status: 'completed', ...ORDER_SETTLEMENT });
    await eventually(() => rented(id), (r) => r === false);
  });

  it('keeps each listing’s and owner’s rating averages from order.rating_published, counting a redelivered rating once', async () => {
    const owner = asUser();
    const [first, second] = [await online(owner), await online(owner)];
    const published = (listingId: string, stars: number, direction: 'renter_to_owner' | 'owner_to_renter' = 'renter_to_owner') => ({
      rating_id: uuidv7(),
      order_id: uuidv7(),
      listing_id: listingId,
      owner_id: owner.sub,
      renter_id: uuidv7(),
      direction,
      stars,
      published_at: new Date().toISOString(),
    });
    const five = await catalog.publish('order.rating_published', published(first, 5));
    await catalog.publish('order.rating_published', five.data, five.id);
    await catalog.publish('order.rating_published', { ...five.data }, uuidv7());
    await catalog.publish('order.rating_published', published(first, 2));
    // an owner's rating of a renter is not the listing's
    await catalog.publish('order.rating_published', published(first, 1, 'owner_to_renter'));
    await catalog.publish('order.rating_published', published(second, 4));
    // events are handled one at a time, in order: once the last counts, every one before it was handled
    const view = (id: string) => catalog.ok(getListing, { params: { id } });
    await eventually(() => view(second), (l) => l.rating.count === 1);
    expect(await view(first)).toMatchObject({ rating: { average: 3.5, count: 2 }, owner_rating: { average: 3.67, count: 3 } });
    expect(await view(second)).toMatchObject({ rating: { average: 4, count: 1 }, owner_rating: { average: 3.67, count: 3 } });
    const listed = await catalog.ok(listListings, { query: { limit: 100 } });
    expect(listed.items.find((l) => l.id === first)).toMatchObject({ rating: { average: 3.5, count: 2 } });
    // a listing the owner creates later shows the owner's record at once
    const later = await catalog.ok(createListing, { body: listingBody(), as: owner });
    expect(later).toMatchObject({ rating: { average: null, count: 0 }, owner_rating: { average: 3.67, count: 3 } });
  });

  describe('credential rotation (ADR 0066)', () => {
    const view = (id: string) => catalog.ok(getListing, { params: { id } });
    /** An order on the listing that handed the account over and then ended as `end` says. */
    async function rental(listingId: string, end: 'completed' | 'closed', { handoffLast = false } = {}) {
      const order = orderData(listingId, 'pending_payment');
      await catalog.publish('order.created', order);
      const handoff = () => catalog.publish('order.handed_off', { ...order, status: 'pending_receive' });
      if (!handoffLast) await handoff();
      const ended = end === 'completed'
        ? await catalog.publish('order.completed', { ...order, status: 'completed', ...ORDER_SETTLEMENT })
        : await catalog.publish('order.closed', { ...order, status: 'closed', ...ORDER_SETTLEMENT });
      if (handoffLast) await handoff();
      return { order, ended };
    }

    it('requires rotation by default only where credentials are stored, and as the owner chooses', async () => {
      const owner = asUser();
      expect(await catalog.ok(createListing, { body: listingBody({ credentials: 'QQ 1 / pw 1' }), as: owner })).toMatchObject({ require_rotation: true, awaiting_rotation: false });
      expect(await catalog.ok(createListing, { body: listingBody({ credentials: 'QQ 1 / pw 1', require_rotation: false }), as: owner })).toMatchObject({ require_rotation: false });
      const plain = await catalog.ok(createListing, { body: listingBody(), as: owner });
      expect(plain.require_rotation).toBe(false);
      // the first credentials stored later turn it on; a draft stays a draft
      expect(await catalog.ok(updateListing, { params: { id: plain.id }, body: { credentials: 'QQ 2 / pw 2' }, as: owner })).toMatchObject({ require_rotation: true, status: 'draft' });
    });

    it('holds a listing back after a rental that handed the account over, tells the owner once, and frees it when the owner confirms a new password', async () => {
      const owner = asUser();
      const id = await online(owner, { credentials: 'QQ 3 / pw 3' });
      const { ended, order } = await rental(id, 'completed');
      await catalog.publish('order.completed', ended.data, ended.id);
      const waiting = await eventually(() => view(id), (l) => l.awaiting_rotation && !l.rented);
      expect(waiting).toMatchObject({ status: 'online', require_rotation: true });
      const [told] = await catalog.awaitPublished('listing.rotation_required', (e) => e.data.listing_id === id);
      expect(told!.data).toMatchObject({ owner_id: owner.sub, order_id: order.order_id, status: 'online' });

      const admin = asAdmin();
      expect((await catalog.ok(adminListListings, { query: { awaiting_rotation: 'true' }, as: admin })).items.map((l) => l.id)).toContain(id);
      expect((await catalog.ok(adminListListings, { query: { awaiting_rotation: 'false' }, as: admin })).items.map((l) => l.id)).not.toContain(id);
      expect((await catalog.ok(listSellerListings, { query: { awaiting_rotation: 'true' }, as: owner })).items.map((l) => l.id)).toEqual([id]);
      // renters still find it, shown as waiting
      expect((await catalog.ok(listListings, { query: { limit: 100 } })).items.find((l) => l.id === id)).toMatchObject({ awaiting_rotation: true });

      expect((await catalog.call(confirmListingRotation, { params: { id }, body: {}, as: asUser() })).status).toBe(404);
      const confirmed = await catalog.ok(confirmListingRotation, { params: { id }, body: {}, as: owner });
      expect(confirmed).toMatchObject({ awaiting_rotation: false, status: 'online', rotation_confirmed_at: expect.any(String) });
      expect(catalog.published('listing.rotation_required', (e) => e.data.listing_id === id)).toHaveLength(1);
    });

    it('counts a closed order’s handover whichever of its events arrives first, and new credentials as the password change', async () => {
      const owner = asUser();
      const id = await online(owner, { credentials: 'QQ 4 / pw 4' });
      await rental(id, 'closed', { handoffLast: true });
      await eventually(() => view(id), (l) => l.awaiting_rotation);
      const updated = await catalog.ok(updateListing, { params: { id }, body: { credentials: 'QQ 4 / new pw' }, as: owner });
      expect(updated).toMatchObject({ awaiting_rotation: false, status: 'online', review_status: 'approved' });
    });

    it('holds nothing back after an order that never handed over, or where the owner turned rotation off', async () => {
      const owner = asUser();
      const cancelledOn = await online(owner, { credentials: 'QQ 5 / pw 5' });
      const order = orderData(cancelledOn, 'pending_payment');
      await catalog.publish('order.created', order);
      await catalog.publish('order.cancelled', { ...order, status: 'cancelled' });
      const off = await online(owner, { credentials: 'QQ 6 / pw 6', require_rotation: false });
      await rental(off, 'completed');
      // handled in order: once the last end has freed its listing, the ones before it were handled too
      await eventually(() => view(off), (l) => !l.rented);
      expect(await view(cancelledOn)).toMatchObject({ rented: false, awaiting_rotation: false });
      expect(await view(off)).toMatchObject({ awaiting_rotation: false });
    });

    it('refuses the owner’s confirmation while the listing is rented', async () => {
      const owner = asUser();
      const id = await online(owner, { credentials: 'QQ 7 / pw 7' });
      await catalog.publish('order.created', orderData(id, 'pending_payment'));
      await eventually(() => view(id), (l) => l.rented);
      const refused = await catalog.call(confirmListingRotation, { params: { id }, body: {}, as: owner });
      expect([refused.status, refused.body.code]).toEqual([409, 'LISTING_UNAVAILABLE']);
    });
  });

  it('takes a frozen owner’s online listings offline once for a freeze delivered twice, and restores exactly those on unfreeze', async () => {
    const owner = asUser();
    const [kept, offlinedBefore] = [await online(owner), await online(owner)];
    await catalog.ok(adminOfflineListing, { params: { id: offlinedBefore }, body: { reason: 'old photos' }, as: admin });
    const bystander = await online();

    const freeze = await catalog.publish('user.frozen', { user_id: owner.sub, reason: 'fraud', frozen_by: admin.sub, frozen_at: new Date().toISOString() });
    await catalog.publish('user.frozen', freeze.data, freeze.id);
    await catalog.publish('user.unfrozen', { user_id: owner.sub, unfrozen_by: admin.sub, unfrozen_at: new Date(Date.now() + 1000).toISOString() });
    const [restored] = await catalog.awaitPublished('listing.restored', (e) => e.data.listing_id === kept);
    expect(restored!.data).toMatchObject({ status: 'online', reason: 'owner unfrozen' });

    expect(catalog.published('listing.offlined', (e) => e.data.listing_id === kept).map((e) => e.data.reason)).toEqual(['owner frozen']);
    expect(catalog.published('listing.offlined', (e) => e.data.listing_id === offlinedBefore).map((e) => e.data.reason)).toEqual(['old photos']);
    expect(catalog.published('listing.restored', (e) => e.data.listing_id === offlinedBefore)).toEqual([]);
    expect(catalog.published('listing.offlined', (e) => e.data.listing_id === bystander)).toEqual([]);
    expect((await catalog.ok(getListing, { params: { id: kept } })).status).toBe('online');
    expect((await catalog.call(getListing, { params: { id: offlinedBefore } })).status).toBe(404);
  });

  it('lets its owner switch renewal off and on, on by default, and tells orders through listingById (ADR 0065)', async () => {
    const owner = asUser();
    const usual = await catalog.ok(createListing, { body: listingBody(), as: owner });
    expect(usual.allow_renewal).toBe(true);
    const off = await catalog.ok(createListing, { body: listingBody({ allow_renewal: false }), as: owner });
    expect(off.allow_renewal).toBe(false);
    expect(await catalog.internalAs('orders').call(listingById, { params: { id: off.id } })).toMatchObject({ allow_renewal: false });
    expect(await catalog.ok(updateListing, { params: { id: off.id }, body: { allow_renewal: true }, as: owner })).toMatchObject({ allow_renewal: true });
    expect(await catalog.internalAs('orders').call(listingById, { params: { id: off.id } })).toMatchObject({ allow_renewal: true });
    const wrong = await catalog.call(updateListing, { params: { id: off.id }, body: { allow_renewal: 'no' }, as: owner });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('answers listingById to orders, with any listing in any state, and to no other service', async () => {
    const owner = asUser();
    const draft = await catalog.ok(createListing, { body: listingBody(), as: owner });
    expect(await catalog.internalAs('orders').call(listingById, { params: { id: draft.id } })).toMatchObject({ id: draft.id, status: 'draft' });
    expect(await catalog.internalAs('orders').find(listingById, { params: { id: uuidv7() } })).toBeNull();
    const refused = await catalog.internalAs('notify').call(listingById, { params: { id: draft.id } }).catch((err) => err);
    expect(refused).toBeInstanceOf(RemoteRefusal);
    expect(refused).toMatchObject({ status: 403 });
  });
});
