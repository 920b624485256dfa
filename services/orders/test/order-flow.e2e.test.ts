import { chargeOrderEscrow, Order } from '@market/contracts';
import { assertionFor } from '@market/shared/testing';
import { api, eventually, Market, type MarketCaller as Caller, type OrderAction, type Stack, startMarket } from '@market/testkit';

/** 3 hours at 800 fen and a 5000 deposit: rent 2400, amount 7400; the platform takes 5 % of consumption. */
const HOURS = 3;
const AMOUNT = 7400;

describe('orders through the gateway: the order flow, money to the fen', () => {
  let stack: Stack;
  let market: Market;

  beforeAll(async () => {
    stack = await startMarket();
    market = new Market(stack);
  }, 60_000);
  afterAll(() => stack?.stop());

  async function paidOrder(opts: { renterFunds?: number; listing?: Record<string, unknown> } = {}) {
    const owner = await market.user();
    const renter = await market.fundedUser(opts.renterFunds ?? 10_000);
    const listing = await market.onlineListing(owner, opts.listing);
    const order = await market.order(renter, listing.id, HOURS);
    await market.act(order.id, 'pay', renter);
    return { owner, renter, listing, order };
  }

  async function inUse() {
    const parties = await paidOrder();
    await market.act(parties.order.id, 'handoff', parties.owner, { content: 'account 10001 / password hunter2' });
    await market.act(parties.order.id, 'confirm-receive', parties.renter);
    return parties;
  }

  it('runs the happy path to completed: escrow on pay, settlement to renter, owner and platform to the fen', async () => {
    const owner = await market.user();
    const renter = await market.fundedUser(10_000);
    const listing = await market.onlineListing(owner);

    const created = await market.order(renter, listing.id, HOURS);
    expect(Order.strict().parse(created)).toMatchObject({
      listing_id: listing.id,
      listing_title: '王者荣耀 全英雄',
      renter_id: renter.id,
      owner_id: owner.id,
      hours: 3,
      hourly_price: 800,
      rent: 2400,
      deposit: 5000,
      amount: AMOUNT,
      status: 'pending_payment',
      checkout: null,
      paid_at: null,
    });
    expect(Date.parse(created.deadline_at) - Date.parse(created.created_at)).toBe(15 * 60_000);
    await eventually(async () => (await market.client.get(`/api/listings/${listing.id}`)).body.rented, (rented) => rented === true);

    const paid = await market.act(created.id, 'pay', renter);
    expect(paid).toMatchObject({ status: 'pending_handoff', paid_at: expect.any(String) });
    expect(await market.balance(renter)).toMatchObject({ available: 10_000 - AMOUNT, frozen: AMOUNT });

    const shot = await market.upload(owner, 'handoff');
    const record = await market.client.post(
      `/api/orders/${created.id}/handoff`,
      { content: 'account 10001 / password hunter2', attachment_keys: [shot.key] },
      owner.token,
    );
    expect(record.status).toBe(201);
    expect(record.body).toMatchObject({ author_id: owner.id, author_role: 'owner', content: 'account 10001 / password hunter2', attachment_urls: [shot.url] });
    expect((await market.client.get(shot.url, renter.token)).status).toBe(200);
    expect(await market.status(created.id, renter)).toBe('pending_receive');
    const note = await market.client.post(`/api/orders/${created.id}/handoff`, { content: 'logged in, thanks' }, renter.token);
    expect(note.status).toBe(201);
    const records = await market.client.get(`/api/orders/${created.id}/handoff-records`, renter.token);
    expect(records.body.items.map((r: any) => [r.author_role, r.content])).toEqual([
      ['owner', 'account 10001 / password hunter2'],
      ['renter', 'logged in, thanks'],
    ]);
    const stranger = await market.user();
    expect((await market.client.get(`/api/orders/${created.id}/handoff-records`, stranger.token)).status).toBe(404);
    expect((await market.client.get(`/api/orders/${created.id}`, stranger.token)).status).toBe(404);
    const sealed = await stack.services.orders!.ctx.db.query(`SELECT content_sealed FROM handoff_records WHERE order_id = $1`, [created.id]);
    expect(sealed.map((r: any) => r.content_sealed).join()).not.toContain('hunter2');

    const started = await market.act(created.id, 'confirm-receive', renter);
    expect(started.status).toBe('in_use');
    expect(Date.parse(started.ends_at) - Date.parse(started.started_at)).toBe(HOURS * 3_600_000);
    expect(Date.parse(started.deadline_at) - Date.parse(started.ends_at)).toBe(30 * 60_000);

    const checkout = await market.act(created.id, 'checkout', renter, { consumption: 1600, reason: 'played two hours' });
    expect(checkout).toMatchObject({
      status: 'pending_checkout_confirm',
      checkout: { consumption: 1600, deposit_deduction: 0, refund: 5800, owner_income: 1520, platform_fee: 80, reason: 'played two hours', evidence_urls: [] },
    });
    const completed = await market.act(created.id, 'checkout/confirm', owner);
    expect(completed).toMatchObject({ status: 'completed', deadline_at: null });

    await eventually(() => market.balance(renter), (b) => b.available === 10_000 - AMOUNT + 5800 && b.frozen === 0);
    await eventually(() => market.balance(owner), (b) => b.available === 1520 && b.frozen === 0);
    await eventually(() => market.platformFeeOf(created.id), (fee) => fee === 80);
    await eventually(async () => (await market.client.get(`/api/listings/${listing.id}`)).body.rented, (rented) => rented === false);

    const [event] = await market.ordersEvents('order.completed', created.id);
    expect(event.data).toMatchObject({ status: 'completed', amount: AMOUNT, consumption: 1600, deposit_deduction: 0, refund: 5800, owner_income: 1520, platform_fee: 80, actor_id: owner.id });
    const audits = (await stack.services.orders!.ctx.db.query(`SELECT payload FROM outbox WHERE type = 'audit.recorded'`))
      .map((r: any) => r.payload.data)
      .filter((d: any) => d.biz_id === created.id)
      .map((d: any) => d.action);
    expect(audits).toEqual(
      expect.arrayContaining(['order.create', 'order.pay', 'order.handoff', 'order.note', 'order.confirm_receive', 'order.checkout', 'order.confirm_checkout']),
    );

    const mine = await market.client.get('/api/orders?role=renter&status=completed', renter.token);
    expect(mine.body.items.map((o: any) => o.id)).toEqual([created.id]);
    expect((await market.client.get('/api/orders?role=owner', renter.token)).body.items).toEqual([]);
    expect((await market.client.get('/api/orders?role=owner', owner.token)).body.items.map((o: any) => o.id)).toEqual([created.id]);
  });

  it('settles the owner’s counter once the renter accepts it, with a deposit deduction and evidence both parties can read', async () => {
    const { owner, renter, order } = await inUse();
    const proposal = await market.act(order.id, 'checkout', renter);
    expect(proposal.checkout).toMatchObject({ consumption: 800, deposit_deduction: 0, refund: 6600 });

    expect((await market.client.post(`/api/orders/${order.id}/checkout/counter`, { deposit_deduction: 5001, reason: 'x' }, owner.token)).status).toBe(400);
    expect((await market.client.post(`/api/orders/${order.id}/checkout/counter`, { consumption: 2401, deposit_deduction: 0, reason: 'x' }, owner.token)).status).toBe(400);
    const foreign = await market.client.post(
      `/api/orders/${order.id}/checkout/counter`,
      { deposit_deduction: 0, reason: 'x', evidence_keys: ['dispute/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png'] },
      owner.token,
    );
    expect(foreign.status).toBe(400);

    const evidence = await market.upload(owner, 'dispute');
    expect((await market.client.get(evidence.url, renter.token)).status).toBe(404);
    const countered = await market.act(order.id, 'checkout/counter', owner, {
      consumption: 2400,
      deposit_deduction: 1000,
      reason: 'played all three hours; skin lost',
      evidence_keys: [evidence.key],
    });
    expect(countered).toMatchObject({
      status: 'pending_correction_confirm',
      checkout: {
        consumption: 2400,
        deposit_deduction: 1000,
        refund: 4000,
        owner_income: 3280,
        platform_fee: 120,
        reason: 'played all three hours; skin lost',
        evidence_urls: [evidence.url],
      },
    });
    expect((await market.client.get(evidence.url, renter.token)).status).toBe(200);
    expect(await market.act(order.id, 'checkout/accept', renter)).toMatchObject({ status: 'completed' });
    await eventually(() => market.balance(renter), (b) => b.available === 10_000 - AMOUNT + 4000 && b.frozen === 0);
    await eventually(() => market.balance(owner), (b) => b.available === 3280);
    await eventually(() => market.platformFeeOf(order.id), (fee) => fee === 120);
  });

  it('opens a checkout dispute when the renter rejects the counter; the escrow stays held', async () => {
    const { owner, renter, order } = await inUse();
    await market.act(order.id, 'checkout', renter, { consumption: 800 });
    await market.act(order.id, 'checkout/counter', owner, { deposit_deduction: 5000, reason: 'account banned' });
    expect((await market.client.post(`/api/orders/${order.id}/checkout/reject`, {}, renter.token)).status).toBe(400);
    const disputed = await market.act(order.id, 'checkout/reject', renter, { reason: 'it was banned before I logged in' });
    expect(disputed).toMatchObject({ status: 'disputed', dispute_id: expect.any(String), deadline_at: expect.any(String) });
    const [opened] = await market.ordersEvents('dispute.opened', order.id);
    expect(opened.data).toMatchObject({ dispute_id: disputed.dispute_id, type: 'checkout', raised_by: renter.id, owner_id: owner.id, reason: 'it was banned before I logged in' });
    const [dispute] = await stack.services.orders!.ctx.db.query(`SELECT type, status, order_id FROM disputes WHERE id = $1`, [disputed.dispute_id]);
    expect(dispute).toEqual({ type: 'checkout', status: 'open', order_id: order.id });
    expect(await market.balance(renter)).toMatchObject({ frozen: AMOUNT });
  });

  it('cancels an unpaid order without money and a paid one with the whole escrow back', async () => {
    const owner = await market.user();
    const renter = await market.fundedUser(10_000);
    const listing = await market.onlineListing(owner);
    const unpaid = await market.order(renter, listing.id);
    expect(await market.act(unpaid.id, 'cancel', renter, { reason: 'changed my mind' })).toMatchObject({ status: 'cancelled', deadline_at: null });
    const [cancelled] = await market.ordersEvents('order.cancelled', unpaid.id);
    expect(cancelled.data).toMatchObject({ reason: 'changed my mind', actor_id: renter.id });

    await eventually(async () => (await market.client.get(`/api/listings/${listing.id}`)).body.rented, (rented) => rented === false);
    const paid = await market.order(renter, listing.id);
    await market.act(paid.id, 'pay', renter);
    expect(await market.balance(renter)).toEqual(expect.objectContaining({ available: 10_000 - 7400, frozen: 7400 }));
    await market.act(paid.id, 'cancel', renter);
    await eventually(() => market.balance(renter), (b) => b.available === 10_000 && b.frozen === 0);
  });

  it('hands over stored credentials by itself on payment, written in the owner’s name', async () => {
    const { owner, renter, order } = await paidOrder({ listing: { credentials: 'QQ 424242 / pw tiger' } });
    const after = await market.client.get(`/api/orders/${order.id}`, renter.token);
    expect(after.body.status).toBe('pending_receive');
    const records = await market.client.get(`/api/orders/${order.id}/handoff-records`, renter.token);
    expect(records.body.items).toEqual([expect.objectContaining({ author_id: owner.id, author_role: 'owner', content: 'QQ 424242 / pw tiger' })]);
    expect((await market.ordersEvents('order.handed_off', order.id)).map((e) => e.data.actor_id)).toEqual([null]);
  });

  it('refuses orders it cannot take: own, unknown, offline or rented listings, hours out of range, frozen renters', async () => {
    const owner = await market.user();
    const renter = await market.user();
    const listing = await market.onlineListing(owner, { min_hours: 2, max_hours: 4 });
    const create = (who: Caller, body: Record<string, unknown>) => market.client.post('/api/orders', body, who.token);

    expect((await create(owner, { listing_id: listing.id, hours: 2 })).status).toBe(403);
    expect((await create(renter, { listing_id: 'not-a-uuid', hours: 2 })).status).toBe(404);
    expect((await create(renter, { listing_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', hours: 2 })).status).toBe(404);
    const short = await create(renter, { listing_id: listing.id, hours: 1 });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ path: 'hours', message: expect.stringContaining('between 2 and 4') }]);
    expect((await create(renter, { listing_id: listing.id, hours: 5 })).status).toBe(400);

    await market.order(renter, listing.id, 2);
    const second = await create(await market.user(), { listing_id: listing.id, hours: 2 });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('LISTING_UNAVAILABLE');

    const other = await market.onlineListing(owner);
    await market.client.post(`/api/admin/listings/${other.id}/offline`, { reason: 'reported' }, await market.admin());
    expect((await create(renter, { listing_id: other.id, hours: 2 })).body.code).toBe('LISTING_UNAVAILABLE');

    // A frozen user's tokens stop at the gateway; orders checks on its own for a request already past it.
    const frozen = await market.user();
    expect((await market.client.post(`/api/admin/users/${frozen.id}/freeze`, { reason: 'fraud' }, await market.admin())).status).toBe(200);
    const third = await market.onlineListing(owner);
    const direct = await api(stack.services.orders!.url).post('/api/orders', { listing_id: third.id, hours: 1 }, undefined, {
      'x-internal-assertion': assertionFor({ kind: 'user', sub: frozen.id, sid: frozen.id, ip: '127.0.0.1' }),
    });
    expect(direct.status).toBe(403);
    expect(direct.body.code).toBe('USER_FROZEN');
  });

  it('requires a verified real name while order.require_realname is on', async () => {
    const owner = await market.user();
    const renter = await market.user();
    const listing = await market.onlineListing(owner);
    await market.setConfig('order.require_realname', true);
    try {
      const refused = await market.client.post('/api/orders', { listing_id: listing.id, hours: 1 }, renter.token);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('REALNAME_REQUIRED');
      const verified = await market.client.post('/api/realname/start', { real_name: '张三', id_number: '11010519491231002X' }, renter.token);
      expect(verified.body.status).toBe('verified');
      expect((await market.client.post('/api/orders', { listing_id: listing.id, hours: 1 }, renter.token)).status).toBe(201);
    } finally {
      await market.setConfig('order.require_realname', false);
    }
  });

  it('refuses every move the state table does not have: 409 for a wrong state, 403 for the other party', async () => {
    type Party = 'renter' | 'owner';
    const actions: Array<{ path: OrderAction; body: Record<string, unknown>; by: Party }> = [
      { path: 'pay', body: {}, by: 'renter' },
      { path: 'cancel', body: {}, by: 'renter' },
      { path: 'confirm-receive', body: {}, by: 'renter' },
      { path: 'checkout', body: {}, by: 'renter' },
      { path: 'checkout/accept', body: {}, by: 'renter' },
      { path: 'checkout/reject', body: { reason: 'no' }, by: 'renter' },
      { path: 'checkout/confirm', body: {}, by: 'owner' },
      { path: 'checkout/counter', body: { deposit_deduction: 0, reason: 'no' }, by: 'owner' },
    ];
    // the state each action is allowed in (CONTRACT §4)
    const allowedIn: Record<string, string[]> = {
      pay: ['pending_payment'],
      cancel: ['pending_payment', 'pending_handoff'],
      'confirm-receive': ['pending_receive'],
      checkout: ['in_use'],
      'checkout/accept': ['pending_correction_confirm'],
      'checkout/reject': ['pending_correction_confirm'],
      'checkout/confirm': ['pending_checkout_confirm'],
      'checkout/counter': ['pending_checkout_confirm'],
    };
    const steps: Array<{ path: OrderAction; by: Party; body?: Record<string, unknown> }> = [
      { path: 'pay', by: 'renter' },
      { path: 'handoff', by: 'owner', body: { content: 'credentials' } },
      { path: 'confirm-receive', by: 'renter' },
      { path: 'checkout', by: 'renter' },
      { path: 'checkout/counter', by: 'owner', body: { deposit_deduction: 10, reason: 'scratch' } },
      { path: 'checkout/reject', by: 'renter', body: { reason: 'no' } },
    ];
    const owner = await market.user();
    const renter = await market.fundedUser(20_000);
    const who = { renter, owner };
    let checked = 0;
    // One order walked through every state the parties can reach, plus a completed and a cancelled one.
    const probe = async (orderId: string, status: string) => {
      for (const action of actions) {
        if (allowedIn[action.path]!.includes(status)) continue;
        const res = await market.client.post(`/api/orders/${orderId}/${action.path}`, action.body, who[action.by].token);
        expect({ status, action: action.path, code: res.body.code }).toEqual({ status, action: action.path, code: 'INVALID_STATE' });
        expect(res.status).toBe(409);
        checked += 1;
      }
      for (const action of actions.filter((a) => allowedIn[a.path]!.includes(status))) {
        const other = action.by === 'renter' ? owner : renter;
        const res = await market.client.post(`/api/orders/${orderId}/${action.path}`, action.body, other.token);
        expect({ status, action: action.path, by: 'other party', code: res.status }).toEqual({ status, action: action.path, by: 'other party', code: 403 });
      }
      if (status !== 'pending_handoff') {
        const handoff = await market.client.post(`/api/orders/${orderId}/handoff`, { content: 'x' }, owner.token);
        const notesAllowed = ['pending_receive', 'in_use', 'pending_checkout_confirm', 'pending_correction_confirm', 'disputed'].includes(status);
        expect({ status, handoff: handoff.status }).toEqual({ status, handoff: notesAllowed ? 201 : 409 });
      } else {
        expect((await market.client.post(`/api/orders/${orderId}/handoff`, { content: 'x' }, renter.token)).status).toBe(403);
      }
    };
    const listing = await market.onlineListing(owner);
    const order = await market.order(renter, listing.id, 1);
    await probe(order.id, 'pending_payment');
    for (const step of steps) {
      await market.act(order.id, step.path, who[step.by], step.body ?? {});
      await probe(order.id, await market.status(order.id, renter));
    }
    expect(await market.status(order.id, renter)).toBe('disputed');

    const second = await market.onlineListing(owner);
    const done = await market.order(renter, second.id, 1);
    for (const step of steps.slice(0, 4)) await market.act(done.id, step.path, who[step.by], step.body ?? {});
    await market.act(done.id, 'checkout/confirm', owner);
    await probe(done.id, 'completed');
    const third = await market.onlineListing(owner);
    const gone = await market.order(renter, third.id, 1);
    await market.act(gone.id, 'cancel', renter);
    await probe(gone.id, 'cancelled');
    expect(checked).toBeGreaterThan(50);
  });

  it('charges once when the renter pays twenty times at once, and replays a repeated Idempotency-Key', async () => {
    const owner = await market.user();
    const renter = await market.fundedUser(20_000);
    const listing = await market.onlineListing(owner);
    const order = await market.order(renter, listing.id, HOURS);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => market.client.post(`/api/orders/${order.id}/pay`, {}, renter.token)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'INVALID_STATE')).toBe(true);
    expect(await market.balance(renter)).toMatchObject({ available: 20_000 - AMOUNT, frozen: AMOUNT });
    expect(await market.ordersEvents('order.paid', order.id)).toHaveLength(1);

    const other = await market.order(renter, (await market.onlineListing(owner)).id, HOURS);
    const key = { 'idempotency-key': `pay-${other.id}` };
    const first = await market.client.post(`/api/orders/${other.id}/pay`, {}, renter.token, key);
    const again = await market.client.post(`/api/orders/${other.id}/pay`, {}, renter.token, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await market.balance(renter)).toMatchObject({ available: 20_000 - 2 * AMOUNT, frozen: 2 * AMOUNT });
  });

  it('lists the caller’s orders newest first in cursor pages, by role and status', async () => {
    const owner = await market.user();
    const renter = await market.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await market.order(renter, (await market.onlineListing(owner)).id, 1)).id);
    await market.act(ids[0]!, 'cancel', renter);
    const first = await market.client.get('/api/orders?limit=2', renter.token);
    expect(first.body.items.map((o: any) => o.id)).toEqual([ids[2], ids[1]]);
    const second = await market.client.get(`/api/orders?limit=2&cursor=${first.body.next_cursor}`, renter.token);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: ids[0], status: 'cancelled' })], next_cursor: null });
    expect((await market.client.get('/api/orders?role=owner&status=pending_payment', owner.token)).body.items.map((o: any) => o.id)).toEqual([ids[2], ids[1]]);
    expect((await market.client.get('/api/orders?cursor=eyJ2IjoiIiwiaWQiOiIifQ', renter.token)).status).toBe(400);
    expect((await market.client.get('/api/orders?role=admin', renter.token)).status).toBe(400);
  });

  it('creates one order for a repeated Idempotency-Key and refuses the key with another body', async () => {
    const owner = await market.user();
    const renter = await market.user();
    const listing = await market.onlineListing(owner);
    const key = { 'idempotency-key': `create-${listing.id}` };
    const first = await market.client.post('/api/orders', { listing_id: listing.id, hours: 2 }, renter.token, key);
    const again = await market.client.post('/api/orders', { listing_id: listing.id, hours: 2 }, renter.token, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const reused = await market.client.post('/api/orders', { listing_id: listing.id, hours: 3 }, renter.token, key);
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('lets exactly one of twenty renters racing for one listing have it', async () => {
    const owner = await market.user();
    const listing = await market.onlineListing(owner);
    const renters = await Promise.all(Array.from({ length: 20 }, () => market.user()));
    const results = await Promise.all(renters.map((r) => market.client.post('/api/orders', { listing_id: listing.id, hours: 1 }, r.token)));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'LISTING_UNAVAILABLE')).toBe(true);
    const [{ count }] = await stack.services.orders!.ctx.db.query(`SELECT count(*)::int AS count FROM orders WHERE listing_id = $1`, [listing.id]);
    expect(count).toBe(1);
  });

  it('completes a payment whose move was lost after the charge without charging again, and refunds a lost one on cancel', async () => {
    const owner = await market.user();
    const renter = await market.fundedUser(20_000);
    const { internal } = stack.services.orders!.ctx;
    // As if orders had crashed right after the wallet charged: the escrow holds the money, the order is unpaid.
    const charge = async (order: { id: string; amount: number }) =>
      internal.call(chargeOrderEscrow, { params: { id: order.id }, body: { renter_id: renter.id, owner_id: owner.id, amount: order.amount } });
    const repaired = await market.order(renter, (await market.onlineListing(owner)).id, HOURS);
    const first = await charge(repaired);
    expect(await market.balance(renter)).toMatchObject({ available: 20_000 - AMOUNT, frozen: AMOUNT });
    const paid = await market.act(repaired.id, 'pay', renter);
    expect(paid).toMatchObject({ status: 'pending_handoff', paid_at: first.charged_at });
    expect(await market.balance(renter)).toMatchObject({ available: 20_000 - AMOUNT, frozen: AMOUNT });

    const abandoned = await market.order(renter, (await market.onlineListing(owner)).id, HOURS);
    await charge(abandoned);
    expect(await market.status(abandoned.id, renter)).toBe('pending_payment');
    await market.act(abandoned.id, 'cancel', renter);
    await eventually(() => market.balance(renter), (b) => b.available === 20_000 - AMOUNT && b.frozen === AMOUNT);
  });

  it('refuses a payment the balance does not cover and leaves the order unpaid', async () => {
    const owner = await market.user();
    const renter = await market.fundedUser(1000);
    const order = await market.order(renter, (await market.onlineListing(owner)).id, HOURS);
    const res = await market.client.post(`/api/orders/${order.id}/pay`, {}, renter.token);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await market.status(order.id, renter)).toBe('pending_payment');
    expect(await market.balance(renter)).toMatchObject({ available: 1000, frozen: 0 });
  });

  // Last: it stops the wallet.
  it('answers 503 and leaves the order unpaid while the wallet is down', async () => {
    const owner = await market.user();
    const renter = await market.fundedUser(10_000);
    const order = await market.order(renter, (await market.onlineListing(owner)).id, HOURS);
    await stack.services.wallet!.stop();
    const res = await market.client.post(`/api/orders/${order.id}/pay`, {}, renter.token);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(await market.status(order.id, renter)).toBe('pending_payment');
  });
});
