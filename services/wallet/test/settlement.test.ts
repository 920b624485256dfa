import { connect } from 'amqplib';
import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow, chargeOrderRenewal, orderEscrow } from '@market/contracts';
import { api, eventually, outboxEvents, publishEvent, internalClientAs, startStack, type Stack } from '@market/testkit';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { balanceOf, breakdown, inboxHas, newUser, orderData, platformRevenue, recharge, type Caller } from './support';

describe('settling order escrows from order events', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    stack = await startStack({ services: ['wallet'] });
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  afterEach(async () => {
    expect(await findLedgerDifferences(stack.services.wallet!.ctx.db)).toEqual([]);
  });

  /** A paid order: the renter recharged `topUp` and orders charged rent + deposit into escrow. */
  async function paidOrder(rent = 8_000, deposit = 5_000, topUp = 20_000) {
    const order = { id: uuidv7(), renter: newUser(), owner: newUser(), rent, deposit };
    await recharge(stack, order.renter, topUp);
    await internalClientAs(stack, 'orders').call(chargeOrderEscrow, {
      params: { id: order.id },
      body: { renter_id: order.renter.id, owner_id: order.owner.id, amount: rent + deposit },
    });
    return order;
  }

  async function settled(orderId: string) {
    return eventually(() => internalClientAs(stack, 'orders').call(orderEscrow, { params: { id: orderId } }), (e) => e.held === 0);
  }

  /** What the wallet announced of an order's settlement (wallet.settled), once per order or never. */
  async function announced(orderId: string) {
    return (await outboxEvents(stack, 'wallet', 'wallet.settled')).filter((e) => e.data.order_id === orderId).map((e) => e.data);
  }

  async function lines(user: Caller, orderId: string) {
    const res = await client.get(`/api/wallet/ledger?order_id=${orderId}`, user.token);
    return (res.body.items as Array<{ biz_type: string; amount: number; order_id: string }>).map((e) => [e.biz_type, e.amount]);
  }

  it('pays a completed order out exactly as its checkout breakdown says, to the fen', async () => {
    const order = await paidOrder();
    const revenueBefore = await platformRevenue(stack);
    const figures = breakdown(13_000, 6_000, 1_001);
    expect(figures).toEqual({ consumption: 6_000, deposit_deduction: 1_001, refund: 5_999, owner_income: 6_651, platform_fee: 350 });
    await publishEvent(stack, 'order.completed', { ...orderData(order, 'completed'), ...figures });
    await settled(order.id);

    expect(await balanceOf(stack, order.owner)).toEqual({ available: 6_651, frozen: 0, currency: 'CNY' });
    expect(await balanceOf(stack, order.renter)).toEqual({ available: 7_000 + 5_999, frozen: 0, currency: 'CNY' });
    expect((await platformRevenue(stack)) - revenueBefore).toBe(350);
    expect(await lines(order.owner, order.id)).toEqual([['settlement_income', 6_651]]);
    expect(await lines(order.renter, order.id)).toEqual([
      ['settlement_refund', 5_999],
      ['order_payment', -13_000],
    ]);
    expect(await announced(order.id)).toEqual([
      expect.objectContaining({
        renter_id: order.renter.id,
        owner_id: order.owner.id,
        ended_by: 'order.completed',
        outcome: 'settled',
        released: 13_000,
        owner_income: 6_651,
        platform_fee: 350,
        refund: 5_999,
      }),
    ]);
  });

  it('refunds the whole escrow to the renter on order.cancelled', async () => {
    const order = await paidOrder();
    expect(await balanceOf(stack, order.renter)).toMatchObject({ available: 7_000, frozen: 13_000 });
    await publishEvent(stack, 'order.cancelled', orderData(order, 'cancelled'));
    await settled(order.id);
    expect(await balanceOf(stack, order.renter)).toMatchObject({ available: 20_000, frozen: 0 });
    expect(await balanceOf(stack, order.owner)).toMatchObject({ available: 0 });
    expect(await lines(order.renter, order.id)).toEqual([
      ['order_refund', 13_000],
      ['order_payment', -13_000],
    ]);
  });

  it('pays a renewed order’s whole escrow out by its renewed figures, and refuses a renewal once the escrow is paid out (ADR 0065)', async () => {
    const order = await paidOrder();
    const renew = (amount: number) =>
      internalClientAs(stack, 'orders').call(chargeOrderRenewal, {
        params: { id: order.id, renewal_id: uuidv7() },
        body: { renter_id: order.renter.id, amount, not_after: new Date(Date.now() + 60_000).toISOString() },
      });
    await renew(4_000);
    expect(await balanceOf(stack, order.renter)).toMatchObject({ available: 3_000, frozen: 17_000 });
    const revenueBefore = await platformRevenue(stack);
    // rent 8000 + 4000 renewed, deposit 5000: the amount the order completes with is the renewed 17000
    await publishEvent(stack, 'order.completed', { ...orderData(order, 'completed'), rent: 12_000, amount: 17_000, ...breakdown(17_000, 12_000, 0) });
    await settled(order.id);
    expect(await balanceOf(stack, order.owner)).toMatchObject({ available: 11_400 });
    expect(await balanceOf(stack, order.renter)).toMatchObject({ available: 8_000, frozen: 0 });
    expect((await platformRevenue(stack)) - revenueBefore).toBe(600);
    await expect(renew(1_000)).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });
    expect(await balanceOf(stack, order.renter)).toMatchObject({ available: 8_000, frozen: 0 });
  });

  it('pays a closed order per the arbitrated split, or all back to the renter by default', async () => {
    const split = await paidOrder();
    const revenueBefore = await platformRevenue(stack);
    await publishEvent(stack, 'order.closed', { ...orderData(split, 'closed'), ...breakdown(13_000, 3_000, 0) });
    await settled(split.id);
    expect(await balanceOf(stack, split.owner)).toMatchObject({ available: 2_850 });
    expect(await balanceOf(stack, split.renter)).toMatchObject({ available: 17_000, frozen: 0 });
    expect((await platformRevenue(stack)) - revenueBefore).toBe(150);

    const refund = await paidOrder();
    await publishEvent(stack, 'order.closed', { ...orderData(refund, 'closed'), ...breakdown(13_000, 0, 0) });
    await settled(refund.id);
    expect(await announced(refund.id)).toEqual([expect.objectContaining({ ended_by: 'order.closed', outcome: 'refunded', released: 13_000, owner_income: 0, refund: 13_000 })]);
    expect(await balanceOf(stack, refund.renter)).toMatchObject({ available: 20_000, frozen: 0 });
    expect(await lines(refund.renter, refund.id)).toEqual([
      ['order_refund', 13_000],
      ['order_payment', -13_000],
    ]);
  });

  it('changes nothing when an end event is redelivered or an order ends twice', async () => {
    const order = await paidOrder();
    const data = { ...orderData(order, 'completed'), ...breakdown(13_000, 8_000, 0) };
    const first = await publishEvent(stack, 'order.completed', data);
    await settled(order.id);
    const owner = await balanceOf(stack, order.owner);
    const renter = await balanceOf(stack, order.renter);
    const revenue = await platformRevenue(stack);

    await publishEvent(stack, 'order.completed', data, first.id);
    const again = await publishEvent(stack, 'order.completed', data);
    const cancelled = await publishEvent(stack, 'order.cancelled', orderData(order, 'cancelled'));
    await eventually(async () => (await inboxHas(stack, again.id)) && (await inboxHas(stack, cancelled.id)), Boolean);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await announced(order.id)).toHaveLength(1);

    expect(await balanceOf(stack, order.owner)).toEqual(owner);
    expect(await balanceOf(stack, order.renter)).toEqual(renter);
    expect(await platformRevenue(stack)).toBe(revenue);
    expect(await lines(order.owner, order.id)).toHaveLength(1);
  });

  it('does nothing for an order cancelled before any charge, and refuses a charge arriving after', async () => {
    const order = { id: uuidv7(), renter: newUser(), owner: newUser(), rent: 1_000, deposit: 0 };
    await recharge(stack, order.renter, 5_000);
    const event = await publishEvent(stack, 'order.cancelled', orderData(order, 'cancelled'));
    await eventually(() => inboxHas(stack, event.id), Boolean);
    const late = internalClientAs(stack, 'orders').call(chargeOrderEscrow, {
      params: { id: order.id },
      body: { renter_id: order.renter.id, owner_id: order.owner.id, amount: 1_000 },
    });
    await expect(late).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE' });
    expect(await balanceOf(stack, order.renter)).toMatchObject({ available: 5_000, frozen: 0 });
    expect(await announced(order.id)).toEqual([]);
    expect(await internalClientAs(stack, 'orders').find(orderEscrow, { params: { id: order.id } })).toBeNull();
  });

  it('leaves the money where it is when a cancellation races the charge, whichever lands first', async () => {
    const renter = newUser();
    await recharge(stack, renter, 50_000);
    const orders = Array.from({ length: 10 }, () => ({ id: uuidv7(), renter, owner: newUser(), rent: 1_000, deposit: 500 }));
    const outcomes = await Promise.all(
      orders.map(async (order) => {
        const [charge, event] = await Promise.all([
          internalClientAs(stack, 'orders')
            .call(chargeOrderEscrow, { params: { id: order.id }, body: { renter_id: renter.id, owner_id: order.owner.id, amount: 1_500 } })
            .then(() => 'charged', (err: { code: string }) => err.code),
          publishEvent(stack, 'order.cancelled', orderData(order, 'cancelled')),
        ]);
        await eventually(() => inboxHas(stack, event.id), Boolean);
        return charge;
      }),
    );
    expect(outcomes.every((o) => o === 'charged' || o === 'INVALID_STATE')).toBe(true);
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 50_000, frozen: 0 });
  });

  it('refuses figures that do not add up to the escrow: no money moves and the event is parked in the DLQ without retries', async () => {
    const order = await paidOrder();
    const wrong = { ...orderData(order, 'completed'), ...breakdown(13_000, 8_000, 0), owner_income: 9_000 };
    await publishEvent(stack, 'order.completed', wrong);
    const otherAmount = await paidOrder(1_000, 0);
    await publishEvent(stack, 'order.completed', { ...orderData({ ...otherAmount, rent: 2_000 }, 'completed'), ...breakdown(2_000, 2_000, 0) });

    const connection = await connect(String(stack.env.AMQP_URL));
    try {
      const channel = await connection.createChannel();
      const dlq = stack.services.wallet!.consumer.queues.dead;
      await eventually(async () => (await channel.checkQueue(dlq)).messageCount, (n) => n >= 2, 15_000);
      for (let i = 0; i < 2; i++) {
        const parked = await channel.get(dlq, { noAck: true });
        expect(parked && parked.properties.headers).toMatchObject({ 'x-attempts': 1, 'x-last-error': expect.stringMatching(/not settled/) });
      }
      await channel.close();
    } finally {
      await connection.close();
    }
    expect(await balanceOf(stack, order.renter)).toMatchObject({ available: 7_000, frozen: 13_000 });
    expect(await balanceOf(stack, order.owner)).toMatchObject({ available: 0 });
    expect(await internalClientAs(stack, 'orders').call(orderEscrow, { params: { id: order.id } })).toMatchObject({ held: 13_000 });
    expect(await internalClientAs(stack, 'orders').call(orderEscrow, { params: { id: otherAmount.id } })).toMatchObject({ held: 1_000 });
  });
});
