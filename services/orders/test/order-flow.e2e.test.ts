import { chargeOrderEscrow, Order } from '@market/contracts';
import { eventually, findLedgerDifferences, internalClientAs, Market, type Stack, startMarket, verifyMoney } from '@market/testkit';

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

  async function paidOrder() {
    const owner = await market.user();
    const renter = await market.fundedUser(10_000);
    const listing = await market.onlineListing(owner);
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

    // two-way ratings (ADR 0066): the first stays with its author until the other party rates, then both show
    const rating = (body: unknown, party: typeof owner) => market.client.post(`/api/orders/${created.id}/rating`, body, party.token);
    const ratings = async (party: typeof owner) => (await market.client.get(`/api/orders/${created.id}/ratings`, party.token)).body.items;
    expect((await rating({ stars: 4, tags: ['as_described'], comment: 'as promised' }, renter)).status).toBe(201);
    expect(await ratings(owner)).toEqual([]);
    const second = await rating({ stars: 5, tags: ['careful_user'] }, owner);
    expect([second.status, second.body.published]).toEqual([201, true]);
    expect((await ratings(owner)).map((r: any) => [r.direction, r.stars, r.comment])).toEqual([
      ['renter_to_owner', 4, 'as promised'],
      ['owner_to_renter', 5, null],
    ]);
    expect((await rating({ stars: 1 }, renter)).body.code).toBe('ALREADY_RATED');
    const rated = await eventually(async () => (await market.client.get(`/api/listings/${listing.id}`)).body, (l) => l.rating.count === 1);
    expect(rated).toMatchObject({ rating: { average: 4, count: 1 }, owner_rating: { average: 4, count: 1 } });
    expect((await market.client.get(`/api/orders/${created.id}`, owner.token)).body.renter_record).toEqual({ rating: { average: 5, count: 1 }, completed_orders: 1 });
    // the back office hides the renter's comment; the stars still count
    const admin = await market.admin();
    const renters = (await market.client.get(`/api/admin/orders/${created.id}/ratings`, admin)).body.items.find((r: any) => r.rater_id === renter.id);
    const hidden = await market.client.post(`/api/admin/orders/${created.id}/ratings/${renters.id}/hide-comment`, { reason: 'insult' }, admin);
    expect([hidden.status, hidden.body.comment_hidden]).toEqual([200, true]);
    expect((await ratings(owner)).find((r: any) => r.id === renters.id)).toMatchObject({ comment: null, comment_hidden: true, stars: 4 });
    expect((await market.client.get(`/api/listings/${listing.id}`)).body.rating).toEqual({ average: 4, count: 1 });
  });

  it('holds a listing whose credentials were handed over until its owner confirms a new password (ADR 0066)', async () => {
    const owner = await market.user();
    const listing = await market.onlineListing(owner, { credentials: 'QQ 606060 / pw falcon' });
    expect(listing).toMatchObject({ require_rotation: true, awaiting_rotation: false });
    const renter = await market.fundedUser(20_000);
    const first = await market.order(renter, listing.id, HOURS);
    expect(await market.act(first.id, 'pay', renter)).toMatchObject({ status: 'pending_receive' });
    await market.act(first.id, 'confirm-receive', renter);
    await market.act(first.id, 'checkout', renter);
    await market.act(first.id, 'checkout/confirm', owner);

    const again = () => market.client.post('/api/orders', { listing_id: listing.id, hours: HOURS }, renter.token);
    const refused = await again();
    expect([refused.status, refused.body.code]).toEqual([409, 'LISTING_AWAITING_ROTATION']);
    const shown = await eventually(async () => (await market.client.get(`/api/listings/${listing.id}`)).body, (l) => l.awaiting_rotation && !l.rented);
    expect(shown.status).toBe('online');
    const confirmed = await market.client.post(`/api/listings/${listing.id}/rotation-confirmed`, {}, owner.token);
    expect([confirmed.status, confirmed.body.awaiting_rotation]).toEqual([200, false]);
    expect((await again()).status).toBe(201);
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

  it('renews an order in use into its escrow and settles the renewed total to the fen (ADR 0065)', async () => {
    const { owner, renter, order } = await inUse();
    const renew = (hours: number, headers: Record<string, string> = {}) => market.client.post(`/api/orders/${order.id}/renew`, { hours }, renter.token, headers);
    const key = { 'idempotency-key': `renew-${order.id}` };
    const renewed = await renew(2, key);
    expect(renewed.status).toBe(200);
    // two hours more at 800: rent 2400 + 1600, the deposit 5000 once
    expect(Order.strict().parse(renewed.body)).toMatchObject({ status: 'in_use', hours: 5, rent: 4000, deposit: 5000, amount: 9000 });
    const again = await renew(2, key);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body]).toEqual([200, 'true', renewed.body]);
    expect(await market.balance(renter)).toMatchObject({ available: 10_000 - 9000, frozen: 9000 });
    const short = await renew(2);
    expect([short.status, short.body.code]).toEqual([409, 'INSUFFICIENT_BALANCE']);
    expect(await market.balance(renter)).toMatchObject({ available: 1000, frozen: 9000 });

    const adminToken = await market.admin();
    const detail = (await market.client.get(`/api/admin/orders/${order.id}`, adminToken)).body;
    expect(detail.renewals).toEqual([expect.objectContaining({ hours: 2, rent: 1600, ends_at: renewed.body.ends_at, previous_ends_at: expect.any(String) })]);
    expect(detail.escrow).toMatchObject({ charged: 9000, held: 9000 });

    // checked out at once: one started hour used of the renewed rent, the rest of the renewed escrow back
    const checkout = await market.act(order.id, 'checkout', renter);
    expect(checkout.checkout).toMatchObject({ consumption: 800, deposit_deduction: 0, refund: 8200, owner_income: 760, platform_fee: 40 });
    await market.act(order.id, 'checkout/confirm', owner);
    await eventually(() => market.balance(renter), (b) => b.available === 1000 + 8200 && b.frozen === 0);
    await eventually(() => market.balance(owner), (b) => b.available === 760);
    expect(await market.platformFeeOf(order.id)).toBe(40);

  });

  it('lets concurrent renewals and a checkout of one order through in one order of events, the money exact to the fen (ADR 0065)', async () => {
    const owner = await market.user();
    const renter = await market.fundedUser(20_000);
    const listing = await market.onlineListing(owner);
    const order = await market.order(renter, listing.id, HOURS);
    await market.act(order.id, 'pay', renter);
    await market.act(order.id, 'handoff', owner, { content: 'account 10001 / password hunter2' });
    await market.act(order.id, 'confirm-receive', renter);

    const renewals = Array.from({ length: 6 }, () => market.client.post(`/api/orders/${order.id}/renew`, { hours: 1 }, renter.token));
    const checkout = market.client.post(`/api/orders/${order.id}/checkout`, {}, renter.token);
    const [firstCheckout, ...renewed] = await Promise.all([checkout, ...renewals]);
    for (const r of renewed) {
      expect({ status: r.status, code: r.body.code }).toEqual(r.status === 200 ? { status: 200, code: undefined } : { status: 409, code: expect.stringMatching(/^(RENEWAL_PENDING|INVALID_STATE)$/) });
    }
    // a checkout that met a renewal being charged is answered RENEWAL_PENDING; asked again, it goes through
    if (firstCheckout.status !== 200) expect([firstCheckout.status, firstCheckout.body.code]).toEqual([409, 'RENEWAL_PENDING']);
    const checkedOut = firstCheckout.status === 200 ? firstCheckout : await eventually(() => market.client.post(`/api/orders/${order.id}/checkout`, {}, renter.token), (r) => r.status === 200);
    const won = renewed.filter((r) => r.status === 200).length;
    const amount = AMOUNT + won * 800;
    expect(checkedOut.body).toMatchObject({ status: 'pending_checkout_confirm', hours: HOURS + won, amount });
    expect(checkedOut.body.checkout).toMatchObject({ consumption: 800, refund: amount - 800, owner_income: 760, platform_fee: 40 });
    // each renewal the renter was told of is in the order, and all of them came before the checkout
    const events = (await market.ordersEvents('order.renewed', order.id)).map((e) => e.data as { amount: number });
    expect(events.map((e) => e.amount)).toEqual(Array.from({ length: won }, (_, i) => AMOUNT + (i + 1) * 800));
    const [requested] = await market.ordersEvents('order.checkout_requested', order.id);
    expect(requested!.data).toMatchObject({ amount, hours: HOURS + won });

    await market.act(order.id, 'checkout/confirm', owner);
    // whatever won, the renter paid 800 for the one started hour and got everything else back
    await eventually(() => market.balance(renter), (b) => b.available === 20_000 - 800 && b.frozen === 0);
    await eventually(() => market.balance(owner), (b) => b.available === 760);
    expect(await market.platformFeeOf(order.id)).toBe(40);
    expect(await findLedgerDifferences(stack.services.wallet!.ctx.db)).toEqual([]);
    const found = await verifyMoney(internalClientAs(stack, 'admin'), 600_000);
    expect(found.mismatches.filter((m) => m.id === order.id)).toEqual([]);
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
});
