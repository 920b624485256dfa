import { v7 as uuidv7 } from 'uuid';
import {
  cancelOrder,
  chargeOrderEscrow,
  confirmReceive,
  createOrder,
  getOrder,
  listOrders,
  listHandoffRecords,
  listingById,
  listingCredentials,
  payOrder,
  startCheckout,
  submitHandoff,
  userStanding,
  counterCheckout,
  rejectCheckout,
  confirmCheckout,
  acceptCheckout,
  adminCloseOrder,
  adminMarkOrderAbnormal,
  orderChargeStatus,
  chargeOrderRenewal,
  openDispute,
  renewalChargeStatus,
  renewOrder,
  blockRenter,
  unblockRenter,
  listRenterBlocks,
  adminRenterStanding,
  systemConfigValues,
  rateOrder,
  listOrderRatings,
  adminListOrderRatings,
  adminHideRatingComment,
  userAvailableBalance,
  type AnyRoute,
  type InternalResult,
} from '@market/contracts';
import { answer, asAdmin, asUser, eventually, refuse, startComponent, type Component } from '@market/testkit';
import { Revocations } from '@market/shared/auth';
import { createLogger } from '@market/shared/logging';
import { connectRedis } from '@market/shared/redis';
import { resolveInfra } from '@market/shared/testing';
import { recordChargeRequest } from '../../src/persistence/order-repository';
import { lockRenterLimits } from '../../src/persistence/renter-repository';
import { Neighbourhood } from './fixtures';

/** Freezes the user as identity does in Redis (identity's own Redis user writes the blocks; the test writes as the operator). */
async function blockUser(orders: Component, userId: string) {
  const redis = await connectRedis((await resolveInfra()).REDIS_URL, createLogger('orders-test', 'silent'));
  try {
    await new Revocations(redis, String(orders.env.REDIS_KEY_PREFIX)).blockSubject('user', userId);
  } finally {
    await redis.quit();
  }
}

/** 3 hours at 800 fen and a 5000 deposit: rent 2400, amount 7400. */
const HOURS = 3;
const AMOUNT = 7400;

describe('orders alone, its neighbours faked at the contracts', () => {
  let orders: Component;
  const world = new Neighbourhood();

  beforeAll(async () => {
    // the charge window short, so the reconciler settles an unanswered charge within the test
    orders = await startComponent('orders', {
      answers: world.answers(),
      // a rating day of 4 s: the 7 days of rating.window_days outlast every test, a window of 1 closes within one
      env: { ORDER_CHARGE_WINDOW_MS: '500', ORDER_RECONCILE_INTERVAL_MS: '200', RATING_DAY_MS: '4000', RATING_PUBLISH_INTERVAL_MS: '200' },
    });
  });
  afterEach(() => orders.verify());
  afterAll(() => orders?.stop());

  const parties = () => ({ owner: asUser(), renter: asUser() });

  async function newOrder(hours = HOURS) {
    const { owner, renter } = parties();
    const listing = world.listing(owner.sub);
    const order = await orders.ok(createOrder, { body: { listing_id: listing.id, hours }, as: renter });
    return { owner, renter, listing, order };
  }

  /** `renter`'s order of `listing`, taken through every move to completed: paid, handed over, received, checked out, confirmed by `owner`. */
  async function completedOrderOf(listing: { id: string }, owner: ReturnType<typeof asUser>, renter: ReturnType<typeof asUser>) {
    const order = await orders.ok(createOrder, { body: { listing_id: listing.id, hours: 1 }, as: renter });
    await orders.ok(payOrder, { params: { id: order.id }, as: renter });
    await orders.ok(submitHandoff, { params: { id: order.id }, body: { content: 'QQ 1 / pw 1' }, as: owner });
    await orders.ok(confirmReceive, { params: { id: order.id }, as: renter });
    await orders.ok(startCheckout, { params: { id: order.id }, as: renter });
    await orders.ok(confirmCheckout, { params: { id: order.id }, as: owner });
    return order;
  }

  it('prices an order from the listing catalog answers and publishes order.created', async () => {
    const { owner, renter } = parties();
    const listing = world.listing(owner.sub, { hourly_price: 900, deposit: 3000 });
    const created = await orders.ok(createOrder, { body: { listing_id: listing.id, hours: 2 }, as: renter });
    expect(created).toMatchObject({
      listing_id: listing.id,
      listing_title: listing.title,
      renter_id: renter.sub,
      owner_id: owner.sub,
      hours: 2,
      hourly_price: 900,
      rent: 1800,
      deposit: 3000,
      amount: 4800,
      status: 'pending_payment',
      paid_at: null,
      checkout: null,
    });
    expect(Date.parse(created.deadline_at!) - Date.parse(created.created_at)).toBe(15 * 60_000);
    expect(orders.neighbours.calls(listingById).map((c) => c.input.params.id)).toContain(listing.id);

    const [event] = await orders.awaitPublished('order.created', (e) => e.data.order_id === created.id);
    expect(event!.data).toEqual({
      order_id: created.id,
      listing_id: listing.id,
      listing_title: listing.title,
      renter_id: renter.sub,
      owner_id: owner.sub,
      status: 'pending_payment',
      rent: 1800,
      deposit: 3000,
      amount: 4800,
      hours: 2,
      reason: null,
      actor_id: renter.sub,
    });
  });

  it('refuses orders it cannot take, by what catalog and identity answer', async () => {
    const { owner, renter } = parties();
    const create = (body: Record<string, unknown>, as = renter) => orders.call(createOrder, { body, as });
    const listing = world.listing(owner.sub, { min_hours: 2, max_hours: 4 });

    expect((await create({ listing_id: listing.id, hours: 2 }, owner)).status).toBe(403);
    expect((await create({ listing_id: 'not-a-uuid', hours: 2 })).status).toBe(404);
    expect((await create({ listing_id: uuidv7(), hours: 2 })).status).toBe(404);
    const short = await create({ listing_id: listing.id, hours: 1 });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ path: 'hours', message: expect.stringContaining('between 2 and 4') }]);
    expect((await create({ listing_id: listing.id, hours: 5 })).status).toBe(400);

    for (const status of ['offline', 'abnormal', 'draft'] as const) {
      const unavailable = await create({ listing_id: world.listing(owner.sub, { status }).id, hours: 1 });
      expect({ status, code: unavailable.body.code }).toEqual({ status, code: 'LISTING_UNAVAILABLE' });
    }
    expect((await create({ listing_id: world.listing(owner.sub, { status: 'deleted' }).id, hours: 1 })).status).toBe(404);

    // one active order per listing, whatever catalog's `rented` says
    expect((await create({ listing_id: listing.id, hours: 2 })).status).toBe(201);
    const second = await create({ listing_id: listing.id, hours: 2 }, asUser());
    expect([second.status, second.body.code]).toEqual([409, 'LISTING_UNAVAILABLE']);

    // frozen as identity freezes: its block, which the gateway reads too
    const frozen = asUser();
    await blockUser(orders, frozen.sub);
    const refused = await create({ listing_id: world.listing(owner.sub).id, hours: 1 }, frozen);
    expect([refused.status, refused.body.code]).toEqual([403, 'USER_FROZEN']);
  });

  it('answers 503 when catalog cannot answer, and creates nothing; identity is not asked while no real name is required', async () => {
    const { owner, renter } = parties();
    const listing = world.listing(owner.sub);
    const attempt = () => orders.call(createOrder, { body: { listing_id: listing.id, hours: 1 }, as: renter });
    const restoreCatalog = orders.neighbours.answer(listingById, () => refuse(503, 'down'));
    const down = await attempt().finally(restoreCatalog);
    expect([down.status, down.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    // identity away changes nothing: the freeze is read from its blocks (ADR 0078)
    const restoreIdentity = orders.neighbours.answer(userStanding, () => refuse(503, 'down'));
    try {
      // nothing was held: the listing is free for the same renter
      expect((await attempt()).status).toBe(201);
    } finally {
      restoreIdentity();
    }
    expect(orders.neighbours.calls(userStanding).filter((c) => c.input.params.id === renter.sub)).toEqual([]);
  });

  it('pays through the wallet’s charge, keyed by the order, and publishes order.paid', async () => {
    const { owner, renter, order } = await newOrder();
    const paid = await orders.ok(payOrder, { params: { id: order.id }, as: renter });
    const charge = world.charges.get(order.id)!;
    expect(paid).toMatchObject({ status: 'pending_handoff', paid_at: charge.charged_at });
    const [call] = orders.neighbours.calls(chargeOrderEscrow).filter((c) => c.input.params.id === order.id);
    expect(call!.input.body).toEqual({ renter_id: renter.sub, owner_id: owner.sub, amount: AMOUNT, not_after: expect.any(String) });
    const [event] = await orders.awaitPublished('order.paid', (e) => e.data.order_id === order.id);
    expect(event!.data).toMatchObject({ status: 'pending_handoff', amount: AMOUNT, paid_at: charge.charged_at, actor_id: renter.sub });
  });

  it('hands over the credentials catalog keeps for the listing by itself on payment, in the owner’s name', async () => {
    const { owner, renter } = parties();
    const listing = world.listing(owner.sub);
    world.credentials.set(listing.id, 'QQ 424242 / pw tiger');
    const order = await orders.ok(createOrder, { body: { listing_id: listing.id, hours: HOURS }, as: renter });
    expect(await orders.ok(payOrder, { params: { id: order.id }, as: renter })).toMatchObject({ status: 'pending_receive' });
    const records = await orders.ok(listHandoffRecords, { params: { id: order.id }, as: renter });
    expect(records.items).toEqual([expect.objectContaining({ author_id: owner.sub, author_role: 'owner', content: 'QQ 424242 / pw tiger' })]);
    const [handedOff] = await orders.awaitPublished('order.handed_off', (e) => e.data.order_id === order.id);
    expect(handedOff!.data.actor_id).toBeNull();
  });

  it('asks catalog for no credentials on payment when none were stored as the order was placed; the owner hands over', async () => {
    const { owner, renter, listing, order } = await newOrder();
    // stored after the order was placed: this order's handoff is the owner's, as for any listing without credentials
    world.credentials.set(listing.id, 'QQ 434343 / pw lynx');
    expect(await orders.ok(payOrder, { params: { id: order.id }, as: renter })).toMatchObject({ status: 'pending_handoff' });
    expect(orders.neighbours.calls(listingCredentials).filter((c) => c.input.params.id === listing.id)).toEqual([]);
    expect((await orders.ok(listHandoffRecords, { params: { id: order.id }, as: renter })).items).toEqual([]);
    expect(await orders.ok(submitHandoff, { params: { id: order.id }, body: { content: 'QQ 434343 / pw lynx' }, as: owner })).toMatchObject({ author_role: 'owner' });
    expect((await orders.ok(getOrder, { params: { id: order.id }, as: renter })).status).toBe('pending_receive');
  });

  it('passes the wallet’s refusal on and leaves the order unpaid', async () => {
    const { renter, order } = await newOrder();
    const restore = orders.neighbours.answer(chargeOrderEscrow, () => refuse(409, 'INSUFFICIENT_BALANCE', 'the balance does not cover it'));
    const refused = await orders.call(payOrder, { params: { id: order.id }, as: renter }).finally(restore);
    expect([refused.status, refused.body.code]).toEqual([409, 'INSUFFICIENT_BALANCE']);
    expect((await orders.ok(getOrder, { params: { id: order.id }, as: renter })).status).toBe('pending_payment');
    expect(orders.published('order.paid', (e) => e.data.order_id === order.id)).toEqual([]);
  });

  it('records a charge the wallet made but never answered for, once the reconciler asks, without charging again', async () => {
    const { renter, order } = await newOrder();
    // the wallet charges, then the answer is lost
    const restore = orders.neighbours.answer(chargeOrderEscrow, ({ params, body }) => {
      world.charges.set(params.id, { order_id: params.id, payment_id: uuidv7(), renter_id: body.renter_id, amount: body.amount, charged_at: new Date().toISOString() });
      return refuse(503, 'answer lost');
    });
    const lost = await orders.call(payOrder, { params: { id: order.id }, as: renter }).finally(restore);
    expect([lost.status, lost.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    const [paid] = await orders.awaitPublished('order.paid', (e) => e.data.order_id === order.id);
    expect(paid!.data).toMatchObject({ status: 'pending_handoff', paid_at: world.charges.get(order.id)!.charged_at, amount: AMOUNT });
    expect(orders.neighbours.calls(chargeOrderEscrow).filter((c) => c.input.params.id === order.id)).toHaveLength(1);
    expect((await orders.ok(getOrder, { params: { id: order.id }, as: renter })).status).toBe('pending_handoff');
  });

  it('plans a party’s move on the order as it last wrote it, and decides a refusal only on the order as read (ADR 0083)', async () => {
    const { owner, renter, order } = await newOrder();
    const db = orders.service.ctx.db;
    // the payment is recorded by the reconciler, not by a move of this process's parties: what the
    // process last wrote of the order still says pending_payment, where a handoff is refused
    const restore = orders.neighbours.answer(chargeOrderEscrow, ({ params, body }) => {
      world.charges.set(params.id, { order_id: params.id, payment_id: uuidv7(), renter_id: body.renter_id, amount: body.amount, charged_at: new Date().toISOString() });
      return refuse(503, 'answer lost');
    });
    expect((await orders.call(payOrder, { params: { id: order.id }, as: renter }).finally(restore)).status).toBe(503);
    await orders.awaitPublished('order.paid', (e) => e.data.order_id === order.id);
    await orders.ok(submitHandoff, { params: { id: order.id }, body: { content: 'QQ 1 / pw 1' }, as: owner });
    expect((await orders.ok(getOrder, { params: { id: order.id }, as: renter })).status).toBe('pending_receive');

    // the back office closes it: what the process last wrote allows the renter's receipt, the order does not
    await orders.ok(adminCloseOrder, { params: { id: order.id }, body: { reason: 'suspected fraud' }, as: asAdmin() });
    const late = await orders.call(confirmReceive, { params: { id: order.id }, as: renter });
    expect([late.status, late.body.code]).toEqual([409, 'INVALID_STATE']);
    expect((await orders.ok(getOrder, { params: { id: order.id }, as: renter })).status).toBe('closed');

    // a hand-made write that leaves the version alone moves it anyway, so no plan made before it is written
    const [{ version }] = await db.query(`SELECT version FROM orders WHERE id = $1`, [order.id]);
    await db.query(`UPDATE orders SET updated_at = now() WHERE id = $1`, [order.id]);
    expect((await db.query(`SELECT version FROM orders WHERE id = $1`, [order.id]))[0].version).toBe(version + 1);
  });

  it('refuses the back office’s end of an unpaid order while its charge is open, so a charge that lands is recorded as the payment', async () => {
    const { renter, order } = await newOrder();
    // the wallet charges, the answer is lost, and the wallet cannot be asked for a while
    const restoreCharge = orders.neighbours.answer(chargeOrderEscrow, ({ params, body }) => {
      world.charges.set(params.id, { order_id: params.id, payment_id: uuidv7(), renter_id: body.renter_id, amount: body.amount, charged_at: new Date().toISOString() });
      return refuse(503, 'answer lost');
    });
    const restoreStatus = orders.neighbours.answer(orderChargeStatus, () => refuse(503, 'wallet down'));
    try {
      expect((await orders.call(payOrder, { params: { id: order.id }, as: renter }).finally(restoreCharge)).status).toBe(503);
      const admin = asAdmin();
      for (const route of [adminMarkOrderAbnormal, adminCloseOrder]) {
        const refused = await orders.call(route, { params: { id: order.id }, body: { reason: 'suspected fraud' }, as: admin });
        expect([refused.status, refused.body.code]).toEqual([409, 'CHARGE_PENDING']);
      }
      expect((await orders.ok(getOrder, { params: { id: order.id }, as: renter })).status).toBe('pending_payment');
    } finally {
      restoreStatus();
    }
    // the wallet answers again: the reconciler records the charge, and the back office may decide on a paid order
    await orders.awaitPublished('order.paid', (e) => e.data.order_id === order.id);
    const held = await orders.ok(adminMarkOrderAbnormal, { params: { id: order.id }, body: { reason: 'suspected fraud' }, as: asAdmin() });
    expect(held).toMatchObject({ status: 'abnormal', paid_at: world.charges.get(order.id)!.charged_at });
  });

  it('moves one of twenty concurrent pays and replays a repeated Idempotency-Key without a second move', async () => {
    const { renter, order } = await newOrder();
    const results = await Promise.all(Array.from({ length: 20 }, () => orders.call(payOrder, { params: { id: order.id }, as: renter })));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'INVALID_STATE')).toBe(true);
    await orders.awaitPublished('order.paid', (e) => e.data.order_id === order.id);

    const other = await newOrder();
    const key = { 'idempotency-key': `pay-${other.order.id}` };
    const first = await orders.call(payOrder, { params: { id: other.order.id }, as: other.renter, headers: key });
    const again = await orders.call(payOrder, { params: { id: other.order.id }, as: other.renter, headers: key });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(orders.neighbours.calls(chargeOrderEscrow).filter((c) => c.input.params.id === other.order.id)).toHaveLength(1);
    // both orders' events are in before counting them
    await orders.awaitPublished('order.paid', (e) => e.data.order_id === other.order.id);
    expect(orders.published('order.paid', (e) => [order.id, other.order.id].includes(e.data.order_id))).toHaveLength(2);
  });

  it('records a pay’s charge request only on the order at the version it was read; a changed one is left for its lock', async () => {
    const { order } = await newOrder();
    const db = orders.service.ctx.db;
    const versionOf = async () => (await db.query(`SELECT version FROM orders WHERE id = $1`, [order.id]))[0].version as number;
    const read = await versionOf();
    const at = new Date();
    expect(await recordChargeRequest(db, order.id, at, new Date(at.getTime() + 1000), read)).toMatchObject({ id: order.id, version: read + 1 });
    // what was read is stale now: the guarded request writes nothing
    expect(await recordChargeRequest(db, order.id, new Date(at.getTime() + 5), new Date(at.getTime() + 9000), read)).toBeNull();
    const [row] = await db.query(`SELECT version, charge_requested_at, charge_deadline_at FROM orders WHERE id = $1`, [order.id]);
    expect(row).toEqual({ version: read + 1, charge_requested_at: at, charge_deadline_at: new Date(at.getTime() + 1000) });
  });

  it('cancels an unpaid order with order.cancelled naming the renter and the reason', async () => {
    const { renter, order } = await newOrder();
    expect(await orders.ok(cancelOrder, { params: { id: order.id }, body: { reason: 'changed my mind' }, as: renter })).toMatchObject({
      status: 'cancelled',
      deadline_at: null,
    });
    const [cancelled] = await orders.awaitPublished('order.cancelled', (e) => e.data.order_id === order.id);
    expect(cancelled!.data).toMatchObject({ status: 'cancelled', reason: 'changed my mind', actor_id: renter.sub });
  });

  it('lets one of racing moves of an order win, each loser decided again on the order it lost to (ADR 0078)', async () => {
    const raced = await newOrder();
    await orders.ok(payOrder, { params: { id: raced.order.id }, as: raced.renter });
    // the renter's cancel against the owner's handoff, which writes a record beside the order
    const [cancelled, handedOver] = await Promise.all([
      orders.call(cancelOrder, { params: { id: raced.order.id }, body: { reason: 'changed my mind' }, as: raced.renter }),
      orders.call(submitHandoff, { params: { id: raced.order.id }, body: { content: 'QQ 7 / pw 7' }, as: raced.owner }),
    ]);
    const cancelWon = cancelled.status === 200;
    // the handoff answers its record (201); whichever lost was refused on the order the other left
    expect(cancelWon ? [cancelled.status, handedOver.status] : [handedOver.status, cancelled.status]).toEqual(cancelWon ? [200, 409] : [201, 409]);
    const after = await orders.ok(getOrder, { params: { id: raced.order.id }, as: raced.renter });
    const records = (await orders.ok(listHandoffRecords, { params: { id: raced.order.id }, as: raced.renter })).items;
    expect({ status: after.status, records: records.length }).toEqual(cancelWon ? { status: 'cancelled', records: 0 } : { status: 'pending_receive', records: 1 });

    // ten confirmations of one handoff at once: one moves the order, nine find it moved and are refused there
    const { owner, renter, order } = await newOrder();
    await orders.ok(payOrder, { params: { id: order.id }, as: renter });
    await orders.ok(submitHandoff, { params: { id: order.id }, body: { content: 'QQ 8 / pw 8' }, as: owner });
    const confirmations = await Promise.all(Array.from({ length: 10 }, () => orders.call(confirmReceive, { params: { id: order.id }, as: renter })));
    expect(confirmations.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect(confirmations.filter((r) => r.status === 409).every((r) => r.body.code === 'INVALID_STATE')).toBe(true);
    await orders.awaitPublished('order.received', (e) => e.data.order_id === order.id);
    expect(orders.published('order.received', (e) => e.data.order_id === order.id)).toHaveLength(1);
  });

  /** Twenty renters order one listing at once: exactly one has it, and only its order.created is written. */
  async function raceForOneListing(renters: Array<ReturnType<typeof asUser>>) {
    const { owner } = parties();
    const listing = world.listing(owner.sub);
    const results = await Promise.all(renters.map((as) => orders.call(createOrder, { body: { listing_id: listing.id, hours: 1 }, as })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(renters.length - 1).fill(409)]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'LISTING_UNAVAILABLE')).toBe(true);
    const winner = results.find((r) => r.status === 201)!.body.id;
    // the winner's event, and after it a later order's: no second order.created for the listing was written between
    await orders.awaitPublished('order.created', (e) => e.data.order_id === winner);
    const later = await newOrder();
    await orders.awaitPublished('order.created', (e) => e.data.order_id === later.order.id);
    expect(orders.published('order.created', (e) => e.data.listing_id === listing.id).map((e) => e.data.order_id)).toEqual([winner]);
  }

  it('lets exactly one of twenty renters racing for one listing have it', async () => {
    await raceForOneListing(Array.from({ length: 20 }, () => asUser()));
  });

  it('lets exactly one of twenty trusted renters racing for one listing have it, on the path that writes an order alone (ADR 0084)', async () => {
    const trustedAfter = (value: number) =>
      orders.publish('system_config.changed', { key: 'renter.trusted_after_orders', value, updated_by: uuidv7(), updated_at: new Date().toISOString() });
    const renters = Array.from({ length: 20 }, () => asUser());
    await trustedAfter(0);
    try {
      await eventually(
        () => orders.ok(adminRenterStanding, { params: { id: renters[0]!.sub }, as: asAdmin() }),
        (standing) => standing.trusted === true,
      );
      await raceForOneListing(renters);
    } finally {
      await trustedAfter(10);
    }
  });

  it('creates one order for a repeated Idempotency-Key and refuses the key with another body', async () => {
    const { owner, renter } = parties();
    const listing = world.listing(owner.sub);
    const headers = { 'idempotency-key': `create-${listing.id}` };
    const first = await orders.call(createOrder, { body: { listing_id: listing.id, hours: 2 }, as: renter, headers });
    const again = await orders.call(createOrder, { body: { listing_id: listing.id, hours: 2 }, as: renter, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.id).toBe(first.body.id);
    const reused = await orders.call(createOrder, { body: { listing_id: listing.id, hours: 3 }, as: renter, headers });
    expect([reused.status, reused.body.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('lists the caller’s orders newest first in cursor pages, by role and status', async () => {
    const { owner, renter } = parties();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await orders.ok(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: renter })).id);
    await orders.ok(cancelOrder, { params: { id: ids[0]! }, as: renter });
    const first = await orders.ok(listOrders, { query: { limit: 2 }, as: renter });
    expect(first.items.map((o) => o.id)).toEqual([ids[2], ids[1]]);
    const second = await orders.ok(listOrders, { query: { limit: 2, cursor: first.next_cursor! }, as: renter });
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[0], status: 'cancelled' })], next_cursor: null });
    expect((await orders.ok(listOrders, { query: { role: 'owner', status: 'pending_payment' }, as: owner })).items.map((o) => o.id)).toEqual([ids[2], ids[1]]);
    expect((await orders.ok(listOrders, { query: { role: 'owner' }, as: renter })).items).toEqual([]);
    expect((await orders.call(listOrders, { query: { cursor: 'eyJ2IjoiIiwiaWQiOiIifQ' }, as: renter })).status).toBe(400);
    expect((await orders.call(listOrders, { query: { role: 'admin' }, as: renter })).status).toBe(400);
  });

  /** An order of `hours` (3 by default) paid, handed over and received: in_use, its rental running. */
  async function orderInUse(listingOverrides: Parameters<Neighbourhood['listing']>[1] = {}, hours = HOURS) {
    const { owner, renter } = parties();
    const listing = world.listing(owner.sub, listingOverrides);
    const order = await orders.ok(createOrder, { body: { listing_id: listing.id, hours }, as: renter });
    await orders.ok(payOrder, { params: { id: order.id }, as: renter });
    await orders.ok(submitHandoff, { params: { id: order.id }, body: { content: 'QQ 1 / pw 2' }, as: owner });
    const running = await orders.ok(confirmReceive, { params: { id: order.id }, as: renter });
    return { owner, renter, listing, order: running };
  }

  it('renews an order in use: the extra rent charged by renewal id, ends_at and the totals moved, order.renewed, a checkout over the whole rent', async () => {
    const { owner, renter, order } = await orderInUse();
    const renewed = await orders.ok(renewOrder, { params: { id: order.id }, body: { hours: 2 }, as: renter });
    // 2 more hours at 800: the deposit is not charged again
    expect(renewed).toMatchObject({ status: 'in_use', hours: 5, rent: 4000, deposit: 5000, amount: 9000 });
    expect(Date.parse(renewed.ends_at!) - Date.parse(order.ends_at!)).toBe(2 * 3_600_000);
    expect(Date.parse(renewed.deadline_at!) - Date.parse(renewed.ends_at!)).toBe(30 * 60_000);
    const [call] = orders.neighbours.calls(chargeOrderRenewal).filter((c) => c.input.params.id === order.id);
    expect(call!.input.body).toEqual({ renter_id: renter.sub, amount: 1600, not_after: expect.any(String) });
    const [event] = await orders.awaitPublished('order.renewed', (e) => e.data.order_id === order.id);
    expect(event!.data).toMatchObject({
      renter_id: renter.sub,
      owner_id: owner.sub,
      hours: 5,
      rent: 4000,
      amount: 9000,
      renewal_id: call!.input.params.renewal_id,
      added_hours: 2,
      added_rent: 1600,
      previous_ends_at: order.ends_at,
      ends_at: renewed.ends_at,
      actor_id: renter.sub,
    });
    // a checkout at once: one started hour of the renewed rent used, the rest of the renewed escrow back
    const checkout = await orders.ok(startCheckout, { params: { id: order.id }, body: {}, as: renter });
    expect(checkout.checkout).toMatchObject({ consumption: 800, deposit_deduction: 0, refund: 8200, owner_income: 760, platform_fee: 40 });
  });

  it('refuses a renewal the listing, the clock, the state or the wallet does not allow, each by its code, and changes nothing', async () => {
    const renewal = (id: string, as: ReturnType<typeof asUser>, hours = 1) => orders.call(renewOrder, { params: { id }, body: { hours }, as });
    const refusedAs = async (res: Awaited<ReturnType<typeof renewal>>) => [res.status, res.body.code];

    const off = await orderInUse({ allow_renewal: false });
    expect(await refusedAs(await renewal(off.order.id, off.renter))).toEqual([409, 'RENEWAL_NOT_ALLOWED']);

    const { owner, renter, listing, order } = await orderInUse();
    expect(await refusedAs(await renewal(order.id, owner))).toEqual([403, 'FORBIDDEN']);
    expect(await refusedAs(await renewal(order.id, asUser()))).toEqual([404, 'NOT_FOUND']);
    expect(await refusedAs(await renewal(order.id, renter, 0))).toEqual([400, 'VALIDATION_FAILED']);
    // 3 hours held, the listing allows 24 in all
    const over = await renewal(order.id, renter, 22);
    expect([over.status, over.body.code, over.body.detail]).toEqual([409, 'RENEWAL_OVER_MAX_HOURS', expect.stringContaining('at most 24 hours')]);
    world.listings.set(listing.id, { ...listing, status: 'offline' });
    expect(await refusedAs(await renewal(order.id, renter))).toEqual([409, 'LISTING_UNAVAILABLE']);
    world.listings.set(listing.id, listing);

    const restore = orders.neighbours.answer(chargeOrderRenewal, () => refuse(409, 'INSUFFICIENT_BALANCE', 'the balance does not cover it'));
    expect(await refusedAs(await renewal(order.id, renter).finally(restore))).toEqual([409, 'INSUFFICIENT_BALANCE']);
    expect(await orders.ok(getOrder, { params: { id: order.id }, as: renter })).toMatchObject({ hours: 3, amount: AMOUNT, ends_at: order.ends_at });
    // a refused charge leaves nothing pending: the renter renews once the balance covers it
    expect(await orders.ok(renewOrder, { params: { id: order.id }, body: { hours: 21 }, as: renter })).toMatchObject({ hours: 24 });

    const unpaid = await newOrder();
    expect(await refusedAs(await renewal(unpaid.order.id, unpaid.renter))).toEqual([409, 'INVALID_STATE']);

    // an hour remains of a one-hour order: too late once renewals must come two hours before the end
    const short = await orderInUse({}, 1);
    const minRemaining = (value: number) =>
      orders.publish('system_config.changed', { key: 'order.renewal_min_remaining_minutes', value, updated_by: uuidv7(), updated_at: new Date().toISOString() });
    await minRemaining(120);
    try {
      // 1 + 24 hours is over the listing's 24 as well, so no probe renews before the change has arrived
      const late = await eventually(() => renewal(short.order.id, short.renter, 24), (res) => res.body.code !== 'RENEWAL_OVER_MAX_HOURS');
      expect([late.status, late.body.code, late.body.detail]).toEqual([409, 'RENEWAL_TOO_LATE', expect.stringContaining('120 minutes')]);
    } finally {
      await minRemaining(5);
    }
    expect((await eventually(() => renewal(short.order.id, short.renter), (res) => res.status === 200)).body).toMatchObject({ hours: 2 });
    expect(orders.published('order.renewed', (e) => [off.order.id, unpaid.order.id].includes(e.data.order_id))).toEqual([]);
  });

  it('holds every other move of an order while its renewal’s charge is unknown, and records the charge once the reconciler asks', async () => {
    const { owner, renter, order } = await orderInUse();
    // the wallet charges the renewal, the answer is lost, and the wallet cannot be asked for a while
    const restoreCharge = orders.neighbours.answer(chargeOrderRenewal, ({ params, body }) => {
      world.renewalCharge(params.id, params.renewal_id, body.renter_id, body.amount);
      return refuse(503, 'answer lost');
    });
    const restoreStatus = orders.neighbours.answer(renewalChargeStatus, () => refuse(503, 'wallet down'));
    try {
      const lost = await orders.call(renewOrder, { params: { id: order.id }, body: { hours: 1 }, as: renter }).finally(restoreCharge);
      expect([lost.status, lost.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      const attempts = [
        await orders.call(startCheckout, { params: { id: order.id }, body: {}, as: renter }),
        await orders.call(renewOrder, { params: { id: order.id }, body: { hours: 1 }, as: renter }),
        await orders.call(openDispute, { params: { id: order.id }, body: { reason: 'banned' }, as: owner }),
        await orders.call(adminCloseOrder, { params: { id: order.id }, body: { reason: 'fraud suspected' }, as: asAdmin() }),
      ];
      expect(attempts.map((r) => [r.status, r.body.code])).toEqual(Array(4).fill([409, 'RENEWAL_PENDING']));
    } finally {
      restoreStatus();
    }
    // the wallet answers again: the reconciler records the renewal it charged, and the order moves again
    const [renewed] = await orders.awaitPublished('order.renewed', (e) => e.data.order_id === order.id);
    expect(renewed!.data).toMatchObject({ hours: 4, amount: AMOUNT + 800, added_rent: 800, actor_id: null });
    expect(orders.neighbours.calls(chargeOrderRenewal).filter((c) => c.input.params.id === order.id)).toHaveLength(1);
    expect(await orders.ok(startCheckout, { params: { id: order.id }, body: {}, as: renter })).toMatchObject({ status: 'pending_checkout_confirm', amount: AMOUNT + 800 });
  });

  it('reminds the renter once per end time before the rental ends, again after a renewal moved it', async () => {
    const reminderMinutes = (value: number) =>
      orders.publish('system_config.changed', { key: 'order.end_reminder_minutes', value, updated_by: uuidv7(), updated_at: new Date().toISOString() });
    // two hours ahead: a one-hour rental is within it at once, a three-hour one is not
    await reminderMinutes(120);
    try {
      const { renter, order } = await orderInUse({}, 1);
      const far = await orderInUse({}, 3);
      const ending = (id: string) => (e: { data: { order_id: string } }) => e.data.order_id === id;
      const [first] = await orders.awaitPublished('order.ending_soon', ending(order.id));
      expect(first!.data).toEqual({
        order_id: order.id,
        listing_id: order.listing_id,
        listing_title: order.listing_title,
        renter_id: renter.sub,
        owner_id: order.owner_id,
        ends_at: order.ends_at,
      });
      const renewed = await orders.ok(renewOrder, { params: { id: order.id }, body: { hours: 1 }, as: renter });
      const reminders = await orders.awaitPublished('order.ending_soon', ending(order.id), 2);
      expect(reminders.map((e) => e.data.ends_at)).toEqual([order.ends_at, renewed.ends_at]);
      // a later order reminded means later scans ran: still one reminder per end time, none for the far one
      const later = await orderInUse({}, 1);
      await orders.awaitPublished('order.ending_soon', ending(later.order.id));
      expect(orders.published('order.ending_soon', ending(order.id))).toHaveLength(2);
      expect(orders.published('order.ending_soon', ending(far.order.id))).toEqual([]);
    } finally {
      await reminderMinutes(10);
    }
  }, 40_000);

  it('holds a new renter to two active orders and five a day, naming the limit; racing creates cannot both take the last slot; a balance exempts', async () => {
    const { owner } = parties();
    const renter = asUser();
    world.balances.set(renter.sub, 9_999);
    const create = () => orders.call(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: renter });
    const raced = await Promise.all(Array.from({ length: 6 }, create));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    for (const refused of raced.filter((r) => r.status === 409)) {
      expect(refused.body).toMatchObject({ code: 'RENTER_LIMIT_REACHED', limit: { name: 'renter.new_max_active', value: 2 } });
    }
    // cancelled orders free the active slots, but still count for the day
    for (const won of raced.filter((r) => r.status === 201)) await orders.ok(cancelOrder, { params: { id: won.body.id }, as: renter });
    for (let i = 0; i < 3; i += 1) {
      const made = await create();
      expect(made.status).toBe(201);
      await orders.ok(cancelOrder, { params: { id: made.body.id }, as: renter });
    }
    const sixth = await create();
    expect([sixth.status, sixth.body.limit]).toEqual([409, { name: 'renter.new_max_daily', value: 5 }]);
    // 100 yuan available: not held to either limit
    world.balances.set(renter.sub, 10_000);
    expect((await create()).status).toBe(201);
    expect(await orders.ok(adminRenterStanding, { params: { id: renter.sub }, as: asAdmin() })).toMatchObject({
      completed_orders: 0,
      active_orders: 1,
      orders_today: 6,
      trusted: false,
      exempt: true,
      max_active: null,
      max_daily: null,
    });
    world.balances.set(renter.sub, 0);
    expect(await orders.ok(adminRenterStanding, { params: { id: renter.sub }, as: asAdmin() })).toMatchObject({ exempt: false, max_active: 2, max_daily: 5 });
  });

  it('asks the wallet whether a new renter’s balance exempts them only when a limit would refuse, after the transaction when a race took the last slot', async () => {
    const { owner } = parties();
    const renter = asUser();
    world.balances.set(renter.sub, 10_000);
    const asked = () => orders.neighbours.calls(userAvailableBalance).filter((c) => c.input.params.id === renter.sub).length;
    const create = () => orders.call(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: renter });
    // below both limits the answer would change nothing: not asked
    expect((await create()).status).toBe(201);
    expect(asked()).toBe(0);
    // One active of two: three racing creates all count one active before their transaction (the
    // renter's lock is held meanwhile), and all are placed. The first to count again under the
    // lock takes the last slot unasked; the other two find it taken there, and the balance, asked
    // once their transaction has rolled back, exempts them.
    const db = orders.service.ctx.db;
    let racing!: Promise<Awaited<ReturnType<typeof create>>[]>;
    await db.transaction(async (tx) => {
      await lockRenterLimits(tx, renter.sub);
      racing = Promise.all(Array.from({ length: 3 }, create));
      // this service's connections (its application name) waiting for an advisory lock, the renter's;
      // read on another connection, since a transaction keeps its first view of pg_stat_activity
      const waiting = async () =>
        (
          await db.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event = 'advisory' AND application_name = (SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid())`,
          )
        )[0].n as number;
      await eventually(waiting, (n) => n === 3);
    });
    const raced = await racing;
    expect(raced.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(asked()).toBe(2);
    // without the balance the limit holds, asked once
    world.balances.set(renter.sub, 9_999);
    const refused = await create();
    expect([refused.status, refused.body.limit]).toEqual([409, { name: 'renter.new_max_active', value: 2 }]);
    expect(asked()).toBe(3);
  });

  it('lets an owner block a renter from their listings without the renter learning who, list the blocks and lift them, audited', async () => {
    const { owner, renter } = parties();
    const mine = world.listing(owner.sub);
    const block = () => orders.call(blockRenter, { params: { user_id: renter.sub }, body: {}, as: owner });
    const blocked = await block();
    expect([blocked.status, blocked.body]).toEqual([200, { user_id: renter.sub, created_at: expect.any(String) }]);
    expect((await block()).body).toEqual(blocked.body);
    const refused = await orders.call(createOrder, { body: { listing_id: mine.id, hours: 1 }, as: renter });
    expect([refused.status, refused.body.code]).toEqual([403, 'LISTING_UNAVAILABLE_TO_YOU']);
    expect(JSON.stringify(refused.body)).not.toContain(owner.sub);
    // another owner's listing is not concerned
    expect((await orders.call(createOrder, { body: { listing_id: world.listing(asUser().sub).id, hours: 1 }, as: renter })).status).toBe(201);
    expect(await orders.ok(listRenterBlocks, { query: {}, as: owner })).toEqual({ items: [blocked.body], next_cursor: null });
    expect((await orders.ok(listRenterBlocks, { query: {}, as: renter })).items).toEqual([]);
    expect(await orders.ok(adminRenterStanding, { params: { id: renter.sub }, as: asAdmin() })).toMatchObject({
      blocked_by: [{ owner_id: owner.sub, created_at: blocked.body.created_at }],
      blocking: [],
    });
    expect(await orders.ok(adminRenterStanding, { params: { id: owner.sub }, as: asAdmin() })).toMatchObject({ blocked_by: [], blocking: [blocked.body] });

    const self = await orders.call(blockRenter, { params: { user_id: owner.sub }, body: {}, as: owner });
    expect([self.status, self.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await orders.call(blockRenter, { params: { user_id: 'nobody' }, body: {}, as: owner })).status).toBe(404);
    const unknown = uuidv7();
    const restore = orders.neighbours.answer(userStanding, () => refuse(404, 'NOT_FOUND'));
    expect((await orders.call(blockRenter, { params: { user_id: unknown }, body: {}, as: owner }).finally(restore)).status).toBe(404);

    expect((await orders.call(unblockRenter, { params: { user_id: renter.sub }, as: owner })).status).toBe(204);
    expect((await orders.call(unblockRenter, { params: { user_id: renter.sub }, as: owner })).status).toBe(404);
    expect((await orders.call(createOrder, { body: { listing_id: mine.id, hours: 1 }, as: renter })).status).toBe(201);
    const audits = await orders.awaitPublished('audit.recorded', (e) => e.data.biz_id === renter.sub && e.data.action === 'renter.unblock');
    expect(audits).toHaveLength(1);
    expect(orders.published('audit.recorded', (e) => e.data.biz_id === renter.sub && e.data.action === 'renter.block')).toHaveLength(1);
  });

  it('refuses every move the state table does not have: 409 for a wrong state, 403 for the other party', async () => {
    type Party = 'renter' | 'owner';
    const actions: Array<{ route: AnyRoute; body: Record<string, unknown>; by: Party; allowedIn: string[] }> = [
      { route: payOrder, body: {}, by: 'renter', allowedIn: ['pending_payment'] },
      { route: cancelOrder, body: {}, by: 'renter', allowedIn: ['pending_payment', 'pending_handoff'] },
      { route: confirmReceive, body: {}, by: 'renter', allowedIn: ['pending_receive'] },
      { route: startCheckout, body: {}, by: 'renter', allowedIn: ['in_use'] },
      { route: acceptCheckout, body: {}, by: 'renter', allowedIn: ['pending_correction_confirm'] },
      { route: rejectCheckout, body: { reason: 'no' }, by: 'renter', allowedIn: ['pending_correction_confirm'] },
      { route: confirmCheckout, body: {}, by: 'owner', allowedIn: ['pending_checkout_confirm'] },
      { route: counterCheckout, body: { deposit_deduction: 0, reason: 'no' }, by: 'owner', allowedIn: ['pending_checkout_confirm'] },
    ];
    const steps: Array<{ route: AnyRoute; by: Party; body?: Record<string, unknown> }> = [
      { route: payOrder, by: 'renter' },
      { route: submitHandoff, by: 'owner', body: { content: 'credentials' } },
      { route: confirmReceive, by: 'renter' },
      { route: startCheckout, by: 'renter' },
      { route: counterCheckout, by: 'owner', body: { deposit_deduction: 10, reason: 'scratch' } },
      { route: rejectCheckout, by: 'renter', body: { reason: 'no' } },
    ];
    const { owner, renter } = parties();
    const who = { renter, owner };
    const status = async (id: string) => (await orders.ok(getOrder, { params: { id }, as: renter })).status;
    const newOne = async () => (await orders.ok(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: renter })).id;
    let checked = 0;
    const probe = async (id: string, state: string) => {
      for (const action of actions) {
        const allowed = action.allowedIn.includes(state);
        const res = await orders.call(action.route, { params: { id }, body: action.body, as: who[allowed ? (action.by === 'renter' ? 'owner' : 'renter') : action.by] });
        const expected = allowed ? { status: 403, code: 'FORBIDDEN' } : { status: 409, code: 'INVALID_STATE' };
        expect({ state, action: action.route.id, status: res.status, code: res.body.code }).toEqual({ state, action: action.route.id, ...expected });
        if (!allowed) checked += 1;
      }
      if (state === 'pending_handoff') {
        expect((await orders.call(submitHandoff, { params: { id }, body: { content: 'x' }, as: renter })).status).toBe(403);
      } else {
        const notesAllowed = ['pending_receive', 'in_use', 'pending_checkout_confirm', 'pending_correction_confirm', 'disputed'].includes(state);
        const note = await orders.call(submitHandoff, { params: { id }, body: { content: 'x' }, as: owner });
        expect({ state, handoff: note.status }).toEqual({ state, handoff: notesAllowed ? 201 : 409 });
      }
    };
    const walked = await newOne();
    await probe(walked, 'pending_payment');
    for (const step of steps) {
      await orders.ok(step.route, { params: { id: walked }, body: step.body ?? {}, as: who[step.by] });
      await probe(walked, await status(walked));
    }
    expect(await status(walked)).toBe('disputed');

    const done = await newOne();
    for (const step of steps.slice(0, 4)) await orders.ok(step.route, { params: { id: done }, body: step.body ?? {}, as: who[step.by] });
    await orders.ok(confirmCheckout, { params: { id: done }, as: owner });
    await probe(done, 'completed');
    const gone = await newOne();
    await orders.ok(cancelOrder, { params: { id: gone }, as: renter });
    await probe(gone, 'cancelled');
    expect(checked).toBeGreaterThan(50);
  });
  it('refuses a listing awaiting its owner’s password change, as catalog says or as its own last handover tells before catalog knows', async () => {
    const refusal = async (listingId: string) => {
      const res = await orders.call(createOrder, { body: { listing_id: listingId, hours: 1 }, as: asUser() });
      return [res.status, res.body.code];
    };
    const owner = asUser();
    expect(await refusal(world.listing(owner.sub, { require_rotation: true, awaiting_rotation: true }).id)).toEqual([409, 'LISTING_AWAITING_ROTATION']);

    // a rental that handed the account over ends; catalog has not heard of it yet
    const listing = world.listing(owner.sub, { require_rotation: true });
    const renter = asUser();
    await completedOrderOf(listing, owner, renter);
    expect(await refusal(listing.id)).toEqual([409, 'LISTING_AWAITING_ROTATION']);
    // the owner confirmed a new password after that end: rentable again
    world.listings.set(listing.id, { ...listing, rotation_confirmed_at: new Date().toISOString() });
    expect((await refusal(listing.id))[0]).toBe(201);
    // without rotation required the same history holds nothing back
    const free = world.listing(owner.sub);
    const other = await orders.ok(createOrder, { body: { listing_id: free.id, hours: 1 }, as: renter });
    await orders.ok(cancelOrder, { params: { id: other.id }, body: {}, as: renter });
    expect((await refusal(free.id))[0]).toBe(201);
  });

  describe('two-way ratings (ADR 0066)', () => {
    async function completedOrder(renter = asUser()) {
      const owner = asUser();
      const listing = world.listing(owner.sub);
      return { owner, renter, listing, order: await completedOrderOf(listing, owner, renter) };
    }
    const changed = (key: string, value: unknown) =>
      orders.publish('system_config.changed', { key, value, updated_by: uuidv7(), updated_at: new Date().toISOString() });
    const rate = (id: string, as: ReturnType<typeof asUser>, body: Record<string, unknown>) => orders.call(rateOrder, { params: { id }, body, as });

    it('keeps a rating from the other party until both have rated, then publishes both at once with one event each', async () => {
      const { owner, renter, listing, order } = await completedOrder();
      const first = await rate(order.id, renter, { stars: 4, tags: ['as_described', 'responsive'], comment: 'smooth' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ direction: 'renter_to_owner', rater_id: renter.sub, ratee_id: owner.sub, stars: 4, published: false, published_at: null });
      expect((await orders.ok(listOrderRatings, { params: { id: order.id }, as: owner })).items).toEqual([]);
      expect((await orders.ok(listOrderRatings, { params: { id: order.id }, as: renter })).items).toHaveLength(1);
      expect((await orders.ok(adminListOrderRatings, { params: { id: order.id }, as: asAdmin() })).items).toHaveLength(1);
      expect(orders.published('order.rating_published', (e) => e.data.order_id === order.id)).toEqual([]);

      const second = await rate(order.id, owner, { stars: 5, tags: ['careful_user'] });
      expect(second.body).toMatchObject({ direction: 'owner_to_renter', published: true });
      const seenByOwner = await orders.ok(listOrderRatings, { params: { id: order.id }, as: owner });
      expect(seenByOwner.items.map((r) => [r.direction, r.stars, r.published, r.comment])).toEqual([
        ['renter_to_owner', 4, true, 'smooth'],
        ['owner_to_renter', 5, true, null],
      ]);
      const events = await orders.awaitPublished('order.rating_published', (e) => e.data.order_id === order.id, 2);
      expect(events.map((e) => e.data).sort((a, b) => a.direction.localeCompare(b.direction))).toEqual([
        expect.objectContaining({ direction: 'owner_to_renter', stars: 5, listing_id: listing.id, owner_id: owner.sub, renter_id: renter.sub }),
        expect.objectContaining({ direction: 'renter_to_owner', stars: 4, listing_id: listing.id, owner_id: owner.sub, renter_id: renter.sub }),
      ]);
    });

    it('publishes both ratings exactly once when the two parties rate at the same moment', async () => {
      for (let round = 0; round < 3; round++) {
        const { owner, renter, order } = await completedOrder();
        const answers = await Promise.all([rate(order.id, renter, { stars: 3 }), rate(order.id, owner, { stars: 4 })]);
        expect(answers.map((a) => a.status)).toEqual([201, 201]);
        const seen = await orders.ok(listOrderRatings, { params: { id: order.id }, as: renter });
        expect(seen.items.map((r) => r.published)).toEqual([true, true]);
        const events = await orders.awaitPublished('order.rating_published', (e) => e.data.order_id === order.id, 2);
        expect(new Set(events.map((e) => e.data.rating_id)).size).toBe(2);
      }
    });

    it('refuses a non-party, an order not completed, a second rating and a tag of the other direction, each by its code', async () => {
      const { owner, renter, order } = await completedOrder();
      expect((await rate(order.id, asUser(), { stars: 3 })).body.code).toBe('NOT_FOUND');
      const active = await newOrder();
      const early = await rate(active.order.id, active.renter, { stars: 3 });
      expect([early.status, early.body.code]).toEqual([409, 'ORDER_NOT_COMPLETED']);
      const foreign = await rate(order.id, owner, { stars: 3, tags: ['as_described'] });
      expect([foreign.status, foreign.body.code, foreign.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', 'tags.0']);
      const badStars = await rate(order.id, owner, { stars: 6 });
      expect([badStars.status, badStars.body.code]).toEqual([400, 'VALIDATION_FAILED']);

      // ten ratings by one renter at once: exactly one is stored
      const racing = await Promise.all(Array.from({ length: 10 }, () => rate(order.id, renter, { stars: 2 })));
      expect(racing.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      expect(racing.filter((r) => r.status === 409).every((r) => r.body.code === 'ALREADY_RATED')).toBe(true);
      expect((await orders.ok(adminListOrderRatings, { params: { id: order.id }, as: asAdmin() })).items).toHaveLength(1);
    });

    it('shows an owner the renter’s published average and completed orders; the renter’s own view has none', async () => {
      const renter = asUser();
      const a = await completedOrder(renter);
      await rate(a.order.id, a.owner, { stars: 5 });
      await rate(a.order.id, renter, { stars: 3 });
      const b = await completedOrder(renter);
      await rate(b.order.id, b.owner, { stars: 2 });
      await rate(b.order.id, renter, { stars: 3 });
      const c = await completedOrder(renter);
      // c's owner rated, unpublished: not counted
      await rate(c.order.id, c.owner, { stars: 1 });

      const ownerView = await orders.ok(getOrder, { params: { id: c.order.id }, as: c.owner });
      expect(ownerView.renter_record).toEqual({ rating: { average: 3.5, count: 2 }, completed_orders: 3 });
      const listed = await orders.ok(listOrders, { query: { role: 'owner' }, as: c.owner });
      expect(listed.items[0]!.renter_record).toEqual({ rating: { average: 3.5, count: 2 }, completed_orders: 3 });
      expect((await orders.ok(getOrder, { params: { id: c.order.id }, as: renter })).renter_record).toBeUndefined();
    });

    it('lets the back office hide an abusive comment, audited: its author still reads it, marked hidden; the other party does not', async () => {
      const { owner, renter, order } = await completedOrder();
      await rate(order.id, owner, { stars: 1, comment: 'abusive words' });
      await rate(order.id, renter, { stars: 5 });
      const [ownersRating] = (await orders.ok(listOrderRatings, { params: { id: order.id }, as: owner })).items.filter((r) => r.rater_id === owner.sub);
      const admin = asAdmin();
      const hidden = await orders.ok(adminHideRatingComment, { params: { id: order.id, ratingId: ownersRating!.id }, body: { reason: 'abuse' }, as: admin });
      expect(hidden).toMatchObject({ comment: 'abusive words', comment_hidden: true, stars: 1 });
      const again = await orders.call(adminHideRatingComment, { params: { id: order.id, ratingId: ownersRating!.id }, body: { reason: 'abuse' }, as: admin });
      expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE']);
      const byRenter = (await orders.ok(listOrderRatings, { params: { id: order.id }, as: renter })).items.find((r) => r.id === ownersRating!.id);
      expect(byRenter).toMatchObject({ comment: null, comment_hidden: true, stars: 1 });
      const byAuthor = (await orders.ok(listOrderRatings, { params: { id: order.id }, as: owner })).items.find((r) => r.id === ownersRating!.id);
      expect(byAuthor).toMatchObject({ comment: 'abusive words', comment_hidden: true });
      const audits = await orders.awaitPublished('audit.recorded', (e) => e.data.action === 'order.rating.hide_comment' && e.data.biz_id === order.id, 2);
      expect(audits.map((e) => [e.data.actor_id, e.data.result])).toEqual([[admin.sub, 'success'], [admin.sub, 'failure']]);
      const noPermission = await orders.call(adminHideRatingComment, {
        params: { id: order.id, ratingId: ownersRating!.id },
        body: { reason: 'abuse' },
        as: asAdmin(undefined, undefined, ['orders.read']),
      });
      expect(noPermission.status).toBe(403);
    });

    it('publishes a lone rating once the window closes, and refuses the late party', async () => {
      await changed('rating.window_days', 1);
      try {
        // the change is handled once a newly completed order's first rating gets a window of one (4 s) day
        const { lone, first } = await eventually(
          async () => {
            const order = await completedOrder();
            return { lone: order, first: await rate(order.order.id, order.renter, { stars: 4 }) };
          },
          ({ first }) => first.status === 201 && Date.parse(first.body.window_closes_at) - Date.parse(first.body.created_at) <= 4000,
          30_000,
        );
        expect(first.body.published).toBe(false);
        const [event] = await orders.awaitPublished('order.rating_published', (e) => e.data.order_id === lone.order.id);
        expect(event!.data).toMatchObject({ direction: 'renter_to_owner', stars: 4 });
        const late = await rate(lone.order.id, lone.owner, { stars: 2 });
        expect([late.status, late.body.code]).toEqual([409, 'RATING_WINDOW_CLOSED']);
        expect((await orders.ok(listOrderRatings, { params: { id: lone.order.id }, as: lone.owner })).items).toEqual([
          expect.objectContaining({ direction: 'renter_to_owner', published: true }),
        ]);
      } finally {
        await changed('rating.window_days', 7);
      }
    });
  });
});

describe('orders alone: the configuration it takes from system_config.changed', () => {
  let orders: Component;
  const world = new Neighbourhood();

  beforeAll(async () => {
    // one configured minute is a second here, and the scan looks often, so a timeout passes within the test
    orders = await startComponent('orders', { answers: world.answers(), env: { ORDER_MINUTE_MS: '1000', ORDER_SCAN_INTERVAL_MS: '200' } });
  });
  afterEach(() => orders.verify());
  afterAll(() => orders?.stop());

  const changed = (key: string, value: unknown, id?: string) =>
    orders.publish('system_config.changed', { key, value, updated_by: uuidv7(), updated_at: new Date().toISOString() }, id);

  it('requires a verified real name once order.require_realname is switched on, as identity tells', async () => {
    const owner = asUser();
    const renter = asUser();
    await changed('order.require_realname', true);
    const attempt = (as = renter) => orders.call(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as });
    const refused = await eventually(attempt, (res) => res.status !== 201);
    expect([refused.status, refused.body.code]).toEqual([403, 'REALNAME_REQUIRED']);
    world.standing.set(renter.sub, { realname_status: 'verified' });
    expect((await attempt()).status).toBe(201);
    // identity's answer now decides: its freeze, an unknown user, and identity away
    const frozen = asUser();
    world.standing.set(frozen.sub, { realname_status: 'verified', frozen: true });
    expect((await attempt(frozen)).body.code).toBe('USER_FROZEN');
    const unknown = asUser();
    const restoreUnknown = orders.neighbours.answer(userStanding, () => refuse(404, 'NOT_FOUND'));
    expect((await attempt(unknown).finally(restoreUnknown)).status).toBe(403);
    const restoreDown = orders.neighbours.answer(userStanding, () => refuse(503, 'down'));
    expect((await attempt().finally(restoreDown)).status).toBe(503);
  });

  it('cancels an unpaid order once a change shortens its payment timeout; a redelivered older change is not applied again', async () => {
    const owner = asUser();
    const renter = asUser();
    // the test before switched order.require_realname on
    world.standing.set(renter.sub, { realname_status: 'verified' });
    const order = await orders.ok(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: renter });
    expect(Date.parse(order.deadline_at!) - Date.parse(order.created_at)).toBe(15 * 1000);
    // handled in this order (one at a time): were the redelivered 600 applied again, the order would wait ten minutes
    const older = await changed('order.payment_timeout_minutes', 600);
    await changed('order.payment_timeout_minutes', 2);
    await changed('order.payment_timeout_minutes', 600, older.id);
    const [cancelled] = await orders.awaitPublished('order.cancelled', (e) => e.data.order_id === order.id);
    expect(cancelled!.data).toMatchObject({ status: 'cancelled', actor_id: null });
    expect(await orders.ok(getOrder, { params: { id: order.id }, as: renter })).toMatchObject({ status: 'cancelled', deadline_at: null });
  });

  it('keeps the latest change of a value when an older change arrives after it', async () => {
    const owner = asUser();
    const renter = asUser();
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    // two changes of admin's, handled newest first (a retried or slower copy of the older one arrives late)
    await orders.publish('system_config.changed', { key: 'order.payment_timeout_minutes', value: 2, updated_by: uuidv7(), updated_at: at(60_000) });
    await orders.publish('system_config.changed', { key: 'order.payment_timeout_minutes', value: 600, updated_by: uuidv7(), updated_at: at(30_000) });
    // handled after both: once an unverified renter may rent again, the two before it are applied
    await changed('order.require_realname', false);
    const attempt = () => orders.call(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: renter });
    const created = await eventually(attempt, (res) => res.status === 201);
    expect(Date.parse(created.body.deadline_at) - Date.parse(created.body.created_at)).toBe(2 * 1000);
  });

  /**
   * An order in use whose 3-hour rental ended `secondsAgo` configured minutes (seconds here) ago: the
   * rental clock is moved back in the order's own row, since a rental cannot be booked for less than an hour.
   */
  async function rentalEnded(secondsAgo: number) {
    const owner = asUser();
    const renter = asUser();
    const order = await orders.ok(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: HOURS }, as: renter });
    await orders.ok(payOrder, { params: { id: order.id }, as: renter });
    await orders.ok(submitHandoff, { params: { id: order.id }, body: { content: 'QQ 1 / pw 2' }, as: owner });
    await orders.ok(confirmReceive, { params: { id: order.id }, as: renter });
    await orders.service.ctx.db.query(
      `UPDATE orders SET started_at = now() - interval '3 hours' - $2 * interval '1 second', ends_at = now() - $2 * interval '1 second',
         deadline_at = now() + (30 - $2) * interval '1 second' WHERE id = $1`,
      [order.id, secondsAgo],
    );
    return { owner, renter, order };
  }

  it('charges the overtime past order.grace_minutes at the renter’s checkout, from the deposit; the owner’s deduction only from what is left of it', async () => {
    // 9.5 s past the end: 10 started minutes, 5 free, 5 × 800 / 60 = 66 fen; the fee 5 % of 2 400 + 66
    const { owner, renter, order } = await rentalEnded(9.5);
    const checkedOut = await orders.ok(startCheckout, { params: { id: order.id }, body: {}, as: renter });
    const figures = { consumption: 2400, overtime_minutes: 5, overtime_fee: 66, deposit_deduction: 0, refund: 4934, owner_income: 2343, platform_fee: 123 };
    expect(checkedOut.checkout).toMatchObject(figures);
    const [requested] = await orders.awaitPublished('order.checkout_requested', (e) => e.data.order_id === order.id);
    expect(requested!.data).toMatchObject(figures);
    // the deposit holds 4 934 after the overtime fee
    const over = await orders.call(counterCheckout, { params: { id: order.id }, body: { deposit_deduction: 4935, reason: 'a scratched skin' }, as: owner });
    expect([over.status, over.body.code, over.body.errors]).toEqual([400, 'VALIDATION_FAILED', [{ path: 'deposit_deduction', message: expect.stringContaining('4934') }]]);
    const countered = await orders.ok(counterCheckout, { params: { id: order.id }, body: { deposit_deduction: 4934, reason: 'a scratched skin' }, as: owner });
    expect(countered.checkout).toMatchObject({ consumption: 2400, overtime_minutes: 5, overtime_fee: 66, deposit_deduction: 4934, refund: 0, owner_income: 7277, platform_fee: 123 });
    await orders.ok(acceptCheckout, { params: { id: order.id }, as: renter });
    const [completed] = await orders.awaitPublished('order.completed', (e) => e.data.order_id === order.id);
    expect(completed!.data).toMatchObject({ overtime_minutes: 5, overtime_fee: 66, deposit_deduction: 4934, refund: 0, owner_income: 7277, platform_fee: 123 });
  });

  it('charges nothing within the grace, and the automatic checkout the overtime up to its deadline, not to when the scan came', async () => {
    const within = await rentalEnded(3);
    const free = await orders.ok(startCheckout, { params: { id: within.order.id }, body: {}, as: within.renter });
    expect(free.checkout).toMatchObject({ consumption: 2400, overtime_minutes: 0, overtime_fee: 0, refund: 5000, owner_income: 2280, platform_fee: 120 });

    // ended 40 s ago, its deadline (ends_at + 30 configured minutes) 10 s ago: the scan checks it out at once,
    // counting 30 minutes past the end, 25 past the grace: 25 × 800 / 60 = 333 fen
    const { renter, order } = await rentalEnded(40);
    const [requested] = await orders.awaitPublished('order.checkout_requested', (e) => e.data.order_id === order.id);
    const figures = { consumption: 2400, overtime_minutes: 25, overtime_fee: 333, deposit_deduction: 0, refund: 4667, owner_income: 2597, platform_fee: 136 };
    expect(requested!.data).toMatchObject({ ...figures, actor_id: null, reason: 'rental ended' });
    expect(await orders.ok(getOrder, { params: { id: order.id }, as: renter })).toMatchObject({ status: 'pending_checkout_confirm', checkout: figures });
  });
});

describe('orders alone: the configuration it reads from admin at start', () => {
  let orders: Component;
  const world = new Neighbourhood();
  // admin is still starting: the loader retries until it answers
  let adminAnswers: () => InternalResult<typeof systemConfigValues> | ReturnType<typeof refuse> = () => refuse(503, 'admin is starting');

  beforeAll(async () => {
    orders = await startComponent('orders', {
      answers: [...world.answers(), answer(systemConfigValues, () => adminAnswers())],
      env: { ORDER_MINUTE_MS: '1000', SETTINGS_RETRY_MS: '200' },
    });
  });
  afterEach(() => orders.verify());
  afterAll(() => orders?.stop());

  it('keeps a change that arrived while it waited over an older value admin answers later', async () => {
    const owner = asUser();
    const renter = asUser();
    const changedAt = Date.now();
    await orders.publish('system_config.changed', {
      key: 'order.payment_timeout_minutes',
      value: 2,
      updated_by: uuidv7(),
      updated_at: new Date(changedAt).toISOString(),
    });
    const order = () => orders.call(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: renter });
    const timeout = (res: Awaited<ReturnType<typeof order>>) => Date.parse(res.body.deadline_at) - Date.parse(res.body.created_at);
    await eventually(order, (res) => res.status === 201 && timeout(res) === 2 * 1000);

    // admin answers at last, with values read before that change (and a newer one of another key)
    adminAnswers = () => ({
      items: [
        { key: 'order.payment_timeout_minutes', value: 600, updated_at: new Date(changedAt - 60_000).toISOString() },
        { key: 'order.require_realname', value: true, updated_at: new Date(changedAt + 1_000).toISOString() },
      ],
    });
    // the loader's one transaction has committed once an unverified renter is refused
    const refused = await eventually(order, (res) => res.status === 403);
    expect(refused.body.code).toBe('REALNAME_REQUIRED');
    world.standing.set(renter.sub, { realname_status: 'verified' });
    const created = await order();
    expect([created.status, timeout(created)]).toEqual([201, 2 * 1000]);
  });
});
