import { startService } from '@market/shared/service';
import { backOfficeAlerts, eventually, internalClientAs, Market, newAdmin, outboxEvents, type MarketCaller as Caller, type Stack, startMarket, verifyMoney } from '@market/testkit';
import { serviceEnv } from '@market/shared/testing';
import { ordersService } from '../src/service';

/**
 * The timeout scan, driven by setting each threshold low through the back office's config endpoint.
 * A configured minute lasts one second here (ORDER_MINUTE_MS), so a threshold of 1 passes at once
 * while the others, held at 600, never fire during a test.
 */
const THRESHOLDS = [
  'order.payment_timeout_minutes',
  'order.handoff_timeout_minutes',
  'order.receive_timeout_minutes',
  'order.checkout_grace_minutes',
  'order.checkout_confirm_timeout_minutes',
  'order.correction_confirm_timeout_minutes',
];
const ORDER_ENV = { ORDER_MINUTE_MS: '1000', ORDER_SCAN_INTERVAL_MS: '200' };

describe('the timeout scan', () => {
  let stack: Stack;
  let market: Market;

  beforeAll(async () => {
    // notify: overdue orders reach the back office's notifications
    stack = await startMarket({ orders: ORDER_ENV, services: ['identity', 'catalog', 'orders', 'wallet', 'files', 'admin', 'notify'] });
    market = new Market(stack);
    for (const key of THRESHOLDS) await market.setConfig(key, 600);
  }, 60_000);
  afterAll(() => stack?.stop());

  /** Lowers one threshold for the duration of `run`. */
  async function withThreshold(key: string, run: () => Promise<void>) {
    await market.setConfig(key, 1);
    try {
      await run();
    } finally {
      await market.setConfig(key, 600);
    }
  }

  const orderOf = async (id: string, party: Caller) => (await market.client.get(`/api/orders/${id}`, party.token)).body;
  const statusBecomes = (id: string, party: Caller, status: string) =>
    eventually(() => orderOf(id, party), (o) => o.status === status, 15_000);

  async function parties(funds = 10_000, listingOverrides: Record<string, unknown> = {}) {
    const owner = await market.user();
    const renter = await market.fundedUser(funds);
    const listing = await market.onlineListing(owner, listingOverrides);
    return { owner, renter, listing };
  }

  async function inState(state: 'pending_handoff' | 'pending_receive' | 'in_use' | 'pending_checkout_confirm' | 'pending_correction_confirm') {
    const p = await parties();
    const order = await market.order(p.renter, p.listing.id, 3);
    await market.act(order.id, 'pay', p.renter);
    if (state === 'pending_handoff') return { ...p, order };
    await market.act(order.id, 'handoff', p.owner, { content: 'id 77 / pw 77' });
    if (state === 'pending_receive') return { ...p, order };
    await market.act(order.id, 'confirm-receive', p.renter);
    if (state === 'in_use') return { ...p, order };
    await market.act(order.id, 'checkout', p.renter, { consumption: 1600 });
    if (state === 'pending_checkout_confirm') return { ...p, order };
    await market.act(order.id, 'checkout/counter', p.owner, { deposit_deduction: 500, reason: 'broke a skin' });
    return { ...p, order };
  }

  it('cancels an unpaid order once the payment threshold passes, recomputing its deadline when the threshold changes', async () => {
    const { renter, listing } = await parties();
    const order = await market.order(renter, listing.id, 3);
    expect(Date.parse(order.deadline_at) - Date.parse(order.created_at)).toBe(600_000);
    await withThreshold('order.payment_timeout_minutes', async () => {
      const cancelled = await statusBecomes(order.id, renter, 'cancelled');
      expect(cancelled.deadline_at).toBeNull();
    });
    const [event] = await market.ordersEvents('order.cancelled', order.id);
    expect(event.data).toMatchObject({ actor_id: null, reason: 'payment timeout' });
    const audits = (await stack.services.orders!.ctx.db.query(`SELECT payload FROM outbox WHERE type = 'audit.recorded'`))
      .map((r: any) => r.payload.data)
      .filter((d: any) => d.biz_id === order.id && d.action === 'order.timeout');
    expect(audits).toEqual([expect.objectContaining({ actor_type: 'system', actor_id: null, detail: { from: 'pending_payment', to: 'cancelled', reason: 'payment timeout' } })]);
    expect(await market.balance(renter)).toMatchObject({ available: 10_000, frozen: 0 });
  });

  it('cancels a paid order the owner never handed over, and the renter gets the escrow back', async () => {
    const { renter, order } = await inState('pending_handoff');
    expect(await market.balance(renter)).toMatchObject({ frozen: 7400 });
    await withThreshold('order.handoff_timeout_minutes', () => statusBecomes(order.id, renter, 'cancelled').then(() => undefined));
    await eventually(() => market.balance(renter), (b) => b.available === 10_000 && b.frozen === 0);
  });

  it('confirms receipt by itself once the receive threshold passes; the rental clock starts then', async () => {
    const { renter, order } = await inState('pending_receive');
    await withThreshold('order.receive_timeout_minutes', async () => {
      const started = await statusBecomes(order.id, renter, 'in_use');
      expect(Date.parse(started.ends_at) - Date.parse(started.started_at)).toBe(3 * 3_600_000);
      expect(Date.parse(started.deadline_at) - Date.parse(started.ends_at)).toBe(600_000);
    });
    const [received] = await market.ordersEvents('order.received', order.id);
    expect(received.data).toMatchObject({ actor_id: null, started_at: expect.any(String), ends_at: expect.any(String) });
  });

  it('starts checkout with the full rent and no deduction once the rental has ended and the grace passes', async () => {
    const { renter, order } = await inState('in_use');
    // A three-hour rental cannot end inside a test: its end is moved into the past, as if the hours had run.
    await stack.services.orders!.ctx.db.query(`UPDATE orders SET ends_at = now() - interval '1 hour' WHERE id = $1`, [order.id]);
    await withThreshold('order.checkout_grace_minutes', async () => {
      const requested = await statusBecomes(order.id, renter, 'pending_checkout_confirm');
      expect(requested.checkout).toMatchObject({ consumption: 2400, deposit_deduction: 0, refund: 5000, owner_income: 2280, platform_fee: 120 });
    });
  });

  it('charges the overtime past order.grace_minutes at the automatic checkout and pays it to the fen: the owner earns it as rent less the fee, the renter gets the rest of the deposit (ADR 0071)', async () => {
    const { owner, renter, order } = await inState('in_use');
    // the three hours ran out an hour ago; nobody checked out
    await stack.services.orders!.ctx.db.query(`UPDATE orders SET started_at = now() - interval '4 hours', ends_at = now() - interval '1 hour' WHERE id = $1`, [order.id]);
    // the automatic checkout counts the overtime to its deadline, ends_at + 20 configured minutes: 20 started
    // minutes, 8 of them free (order.grace_minutes, set through the back office), 12 × 800 / 60 = 160 fen from the
    // deposit; the fee 5 % of 2 400 + 160
    const figures = { consumption: 2400, overtime_minutes: 12, overtime_fee: 160, deposit_deduction: 0, refund: 4840, owner_income: 2432, platform_fee: 128 };
    await market.setConfig('order.grace_minutes', 8);
    await market.setConfig('order.checkout_grace_minutes', 20);
    try {
      const requested = await statusBecomes(order.id, renter, 'pending_checkout_confirm');
      expect(requested.checkout).toMatchObject(figures);
    } finally {
      await market.setConfig('order.checkout_grace_minutes', 600);
      await market.setConfig('order.grace_minutes', 5);
    }
    const done = await market.act(order.id, 'checkout/confirm', owner);
    expect(done).toMatchObject({ status: 'completed', checkout: figures });
    const [completed] = await market.ordersEvents('order.completed', order.id);
    expect(completed.data).toMatchObject(figures);
    await eventually(() => market.balance(renter), (b) => b.available === 10_000 - 7400 + 4840 && b.frozen === 0);
    await eventually(() => market.balance(owner), (b) => b.available === 2432);
    await eventually(() => market.platformFeeOf(order.id), (fee) => fee === 128);
    // the wallet tells the parties the overtime it paid out with the rest
    const paidOut = (await outboxEvents(stack, 'wallet', 'wallet.settled')).filter((e) => e.data.order_id === order.id).map((e) => e.data);
    expect(paidOut).toEqual([expect.objectContaining({ owner_income: 2432, platform_fee: 128, refund: 4840, overtime_fee: 160 })]);
    const found = await verifyMoney(internalClientAs(stack, 'admin'), 600_000);
    expect(found).toEqual({ mismatches: [], ledger: { checks: expect.any(Number), differences: [] } });
  });

  it('completes an unanswered checkout with the renter’s figures and pays them out', async () => {
    const { owner, renter, order } = await inState('pending_checkout_confirm');
    await withThreshold('order.checkout_confirm_timeout_minutes', async () => {
      const done = await statusBecomes(order.id, renter, 'completed');
      expect(done.checkout).toMatchObject({ consumption: 1600, deposit_deduction: 0, refund: 5800, owner_income: 1520, platform_fee: 80 });
    });
    await eventually(() => market.balance(renter), (b) => b.available === 10_000 - 7400 + 5800 && b.frozen === 0);
    await eventually(() => market.balance(owner), (b) => b.available === 1520);
    await eventually(() => market.platformFeeOf(order.id), (fee) => fee === 80);
  });

  it('completes an unanswered checkout proposing 0 after a full rental at the time used, not at 0 (ADR 0029)', async () => {
    const { owner, renter, order } = await inState('in_use');
    // the three hours ran: the rental is moved into the past, then the renter proposes nothing
    await stack.services.orders!.ctx.db.query(
      `UPDATE orders SET started_at = now() - interval '3 hours', ends_at = now() WHERE id = $1`,
      [order.id],
    );
    const proposed = await market.act(order.id, 'checkout', renter, { consumption: 0 });
    expect(proposed.checkout).toMatchObject({ consumption: 0, refund: 7400 });
    await withThreshold('order.checkout_confirm_timeout_minutes', async () => {
      const done = await statusBecomes(order.id, renter, 'completed');
      expect(done.checkout).toMatchObject({ consumption: 2400, deposit_deduction: 0, refund: 5000, owner_income: 2280, platform_fee: 120 });
    });
    await eventually(() => market.balance(owner), (b) => b.available === 2280);
    const [completed] = await market.ordersEvents('order.completed', order.id);
    expect(completed.data).toMatchObject({ actor_id: null, consumption: 2400, reason: 'checkout completed automatically at the time used' });
  });

  it('completes an unanswered correction with the owner’s figures', async () => {
    const { owner, renter, order } = await inState('pending_correction_confirm');
    await withThreshold('order.correction_confirm_timeout_minutes', async () => {
      const done = await statusBecomes(order.id, renter, 'completed');
      expect(done.checkout).toMatchObject({ consumption: 1600, deposit_deduction: 500, refund: 5300, owner_income: 2020, platform_fee: 80 });
    });
    await eventually(() => market.balance(owner), (b) => b.available === 2020);
    const [completed] = await market.ordersEvents('order.completed', order.id);
    expect(completed.data).toMatchObject({ actor_id: null, consumption: 1600, deposit_deduction: 500, refund: 5300, owner_income: 2020, platform_fee: 80 });
  });

  it('rents an open-upload listing to completion: its credentials hand over on payment, the unanswered checkout completes', async () => {
    const adminToken = await market.admin();
    const account = {
      title: '原神 满命 雷电将军',
      game: '原神',
      hourly_price: 600,
      deposit: 3000,
      min_hours: 2,
      max_hours: 72,
      account: 'genshin-8001',
      password: 'p@ss-8001',
    };
    const upload = await market.client.post('/api/open/listing-uploads', { uploadTime: '2026-11-22 18:00:00', uploaderName: 'admin', data: account });
    expect(upload.status).toBe(201);
    const listingId = upload.body.listings[0].id;
    const listing = await market.approve(listingId);
    const publisherId = listing.owner_id;

    const renter = await market.fundedUser(10_000);
    const order = await market.order(renter, listingId, 2);
    expect(order).toMatchObject({ owner_id: publisherId, rent: 1200, deposit: 3000, amount: 4200 });
    const paid = await market.act(order.id, 'pay', renter);
    expect(paid.status).toBe('pending_receive');
    const records = await market.client.get(`/api/orders/${order.id}/handoff-records`, renter.token);
    expect(records.body.items).toHaveLength(1);
    expect(records.body.items[0]).toMatchObject({ author_role: 'owner', author_id: publisherId });
    expect(JSON.parse(records.body.items[0].content)).toMatchObject({ account: 'genshin-8001', password: 'p@ss-8001' });

    await market.act(order.id, 'confirm-receive', renter);
    await market.act(order.id, 'checkout', renter);
    await withThreshold('order.checkout_confirm_timeout_minutes', async () => {
      const done = await statusBecomes(order.id, renter, 'completed');
      expect(done.checkout).toMatchObject({ consumption: 600, deposit_deduction: 0, refund: 3600, owner_income: 570, platform_fee: 30 });
    });
    await eventually(() => market.balance(renter), (b) => b.available === 10_000 - 4200 + 3600 && b.frozen === 0);
    const ledger = await eventually(
      async () => (await market.client.get(`/api/admin/wallet/ledger?user_id=${publisherId}`, adminToken)).body.items,
      (items: any[]) => items.length === 1,
    );
    expect(ledger[0]).toMatchObject({ order_id: order.id, biz_type: 'settlement_income', amount: 570, balance_after: 570 });
  });

  describe('disputed and abnormal orders nobody decides (ADR 0029)', () => {
    // A configured hour lasts 60 s here; the clock of an order is moved back instead of waiting.
    const ordersDb = () => stack.services.orders!.ctx.db;
    const overdueAudits = async (orderId: string) =>
      (await ordersDb().query(`SELECT payload FROM outbox WHERE type = 'audit.recorded'`))
        .map((r: any) => r.payload.data)
        .filter((d: any) => d.biz_id === orderId && d.action === 'order.overdue');

    it('alerts the back office past the dispute threshold, then closes at the time used with no deduction past twice it', async () => {
      const { owner, renter, order } = await inState('in_use');
      const opened = await market.client.post(`/api/orders/${order.id}/dispute`, { reason: 'the account was taken back' }, renter.token);
      expect(opened.status).toBe(201);
      // 73 configured hours in the state: past the default 72
      await ordersDb().query(`UPDATE orders SET status_changed_at = now() - interval '73 minutes', deadline_at = now() WHERE id = $1`, [order.id]);
      const [alert] = await eventually(() => overdueAudits(order.id), (a) => a.length === 1);
      expect(alert).toMatchObject({ actor_type: 'system', result: 'failure', detail: { status: 'disputed' } });
      const admin = await newAdmin(stack, ['customer_service']);
      const [notice] = await backOfficeAlerts(stack, admin, order.id);
      expect(notice).toMatchObject({
        kind: 'ops.alert',
        title: '[warning] ORDER_OVERDUE · orders',
        data: { alert: 'ORDER_OVERDUE', subject_type: 'order', subject_id: order.id, status: 'disputed', default_resolution_at: expect.any(String) },
      });
      const alerted = await orderOf(order.id, renter);
      expect(alerted.status).toBe('disputed');
      const [row] = await ordersDb().query(`SELECT status_changed_at, deadline_at FROM orders WHERE id = $1`, [order.id]);
      expect(row.deadline_at.getTime() - row.status_changed_at.getTime()).toBe(2 * 72 * 60_000);

      // past twice the threshold; the account had been in use for two (real) hours when the dispute froze it
      await ordersDb().query(
        `UPDATE orders SET status_changed_at = now() - interval '145 minutes', started_at = now() - interval '145 minutes' - interval '2 hours',
           deadline_at = now() WHERE id = $1`,
        [order.id],
      );
      const closed = await statusBecomes(order.id, renter, 'closed');
      expect(closed.checkout).toMatchObject({ consumption: 1600, deposit_deduction: 0, owner_income: 1520, platform_fee: 80, refund: 5800 });
      const dispute = (await market.client.get(`/api/disputes/${opened.body.id}`, renter.token)).body;
      expect(dispute).toMatchObject({ status: 'resolved', result: 'close' });
      const [resolved] = await market.ordersEvents('dispute.resolved', order.id);
      expect(resolved.data).toMatchObject({ resolved_by: null, result: 'close' });
      await eventually(() => market.balance(renter), (b) => b.available === 10_000 - 7400 + 5800 && b.frozen === 0);
      await eventually(() => market.balance(owner), (b) => b.available === 1520);
      expect(await overdueAudits(order.id)).toHaveLength(1);
      expect(await backOfficeAlerts(stack, admin, order.id)).toHaveLength(1);
    });

    it('alerts about an abnormal order past its threshold and, past twice it, refunds an order never used', async () => {
      const { renter, order } = await inState('pending_handoff');
      const held = await market.client.post(`/api/admin/orders/${order.id}/mark-abnormal`, { reason: 'owner unreachable' }, await market.admin());
      expect(held.status).toBe(200);
      await ordersDb().query(`UPDATE orders SET status_changed_at = now() - interval '169 minutes', deadline_at = now() WHERE id = $1`, [order.id]);
      await eventually(() => overdueAudits(order.id), (a) => a.length === 1);
      const [notice] = await backOfficeAlerts(stack, await newAdmin(stack, ['customer_service']), order.id);
      expect(notice!.data).toMatchObject({ alert: 'ORDER_OVERDUE', status: 'abnormal' });
      // the threshold changed meanwhile: the second deadline follows it
      await market.setConfig('order.abnormal_timeout_hours', 100);
      try {
        const [row] = await ordersDb().query(`SELECT status_changed_at, deadline_at FROM orders WHERE id = $1`, [order.id]);
        expect(row.deadline_at.getTime() - row.status_changed_at.getTime()).toBe(2 * 100 * 60_000);
        await ordersDb().query(`UPDATE orders SET deadline_at = now() WHERE id = $1`, [order.id]);
        const closed = await statusBecomes(order.id, renter, 'closed');
        expect(closed.checkout).toMatchObject({ consumption: 0, refund: 7400, owner_income: 0 });
        await eventually(() => market.balance(renter), (b) => b.available === 10_000 && b.frozen === 0);
      } finally {
        await market.setConfig('order.abnormal_timeout_hours', 168);
      }
    });
  });

  it('keeps moving other orders when one due order cannot be moved', async () => {
    const { renter, listing } = await parties();
    // A row no timed move applies to (disputed) with a deadline in the past, as a bug or a hand edit could leave.
    const { db } = stack.services.orders!.ctx;
    const stuck = await market.order(renter, listing.id, 1);
    await db.query(`UPDATE orders SET status = 'disputed', deadline_at = now() - interval '1 minute' WHERE id = $1`, [stuck.id]);
    const other = await parties();
    const order = await market.order(other.renter, other.listing.id, 1);
    await withThreshold('order.payment_timeout_minutes', () => statusBecomes(order.id, other.renter, 'cancelled').then(() => undefined));
    expect(await market.status(stuck.id, renter)).toBe('disputed');
    await db.query(`UPDATE orders SET deadline_at = NULL WHERE id = $1`, [stuck.id]);
  });

  it('moves each due order once when two replicas scan together', async () => {
    const schema = stack.services.orders!.ctx.schema;
    const replica = await startService(ordersService, { ...serviceEnv(stack.env, 'orders'), ...ORDER_ENV, DB_SCHEMA: schema, PORT: '0' });
    try {
      const orders: Array<{ id: string; renter: Caller }> = [];
      const owner = await market.user();
      for (let i = 0; i < 8; i += 1) {
        const renter = await market.user();
        const listing = await market.onlineListing(owner);
        orders.push({ id: (await market.order(renter, listing.id, 1)).id, renter });
      }
      await withThreshold('order.payment_timeout_minutes', async () => {
        for (const o of orders) await statusBecomes(o.id, o.renter, 'cancelled');
      });
      for (const o of orders) expect(await market.ordersEvents('order.cancelled', o.id)).toHaveLength(1);
    } finally {
      await replica.stop();
    }
  });
});
