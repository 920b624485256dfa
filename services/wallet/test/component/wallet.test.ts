import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow, completeSandboxPayment, getWalletBalance, startRecharge, type EventData } from '@market/contracts';
import { RemoteRefusal } from '@market/shared/http';
import { asUser, eventually, startComponent, type Component } from '@market/testkit';

/** 2 hours at 800 fen and a 5000 deposit: 6600 in escrow. */
const RENT = 1600;
const DEPOSIT = 5000;
const AMOUNT = RENT + DEPOSIT;

describe('wallet alone, its neighbours faked at the contracts', () => {
  let wallet: Component;

  beforeAll(async () => {
    wallet = await startComponent('wallet');
  });
  afterEach(() => wallet.verify());
  afterAll(() => wallet?.stop());

  const balance = (user: ReturnType<typeof asUser>) => wallet.ok(getWalletBalance, { as: user });

  /** A recharge through the sandbox gateway, as a payer completes it. */
  async function funded(amount: number) {
    const user = asUser();
    const payment = await wallet.ok(startRecharge, { body: { amount }, as: user });
    await wallet.ok(completeSandboxPayment, { params: { id: payment.id }, body: { status: 'succeeded' } });
    await eventually(() => balance(user), (b) => b.available === amount);
    return { user, payment };
  }

  const charge = (orderId: string, renter: string, owner: string, amount = AMOUNT) =>
    wallet.internalAs('orders').call(chargeOrderEscrow, { params: { id: orderId }, body: { renter_id: renter, owner_id: owner, amount } });

  function completed(orderId: string, renter: string, owner: string, consumption: number): EventData<'order.completed'> {
    const platformFee = Math.floor(consumption * 0.05);
    return {
      order_id: orderId,
      listing_id: uuidv7(),
      listing_title: '王者荣耀 全英雄',
      renter_id: renter,
      owner_id: owner,
      status: 'completed',
      rent: RENT,
      deposit: DEPOSIT,
      amount: AMOUNT,
      hours: 2,
      reason: null,
      actor_id: owner,
      consumption,
      deposit_deduction: 0,
      refund: AMOUNT - consumption,
      owner_income: consumption - platformFee,
      platform_fee: platformFee,
    };
  }

  it('credits a recharge and publishes payment.succeeded for it', async () => {
    const { user, payment } = await funded(10_000);
    const [event] = await wallet.awaitPublished('payment.succeeded', (e) => e.data.payment_id === payment.id);
    expect(event!.data).toMatchObject({ user_id: user.sub, amount: 10_000, purpose: 'recharge', order_id: null });
  });

  it('charges an order into escrow once, keyed by the order, and refuses a short balance or another amount', async () => {
    const { user: renter } = await funded(10_000);
    const owner = asUser();
    const orderId = uuidv7();
    const first = await charge(orderId, renter.sub, owner.sub);
    expect(await charge(orderId, renter.sub, owner.sub)).toEqual(first);
    expect(await balance(renter)).toMatchObject({ available: 10_000 - AMOUNT, frozen: AMOUNT });
    const [paid] = await wallet.awaitPublished('payment.succeeded', (e) => e.data.order_id === orderId);
    expect(paid!.data).toMatchObject({ payment_id: first.payment_id, user_id: renter.sub, amount: AMOUNT, purpose: 'order', gateway_txn_id: null });

    const other = await charge(orderId, renter.sub, owner.sub, AMOUNT + 1).catch((err) => err);
    expect(other).toBeInstanceOf(RemoteRefusal);
    expect(other).toMatchObject({ status: 409, code: 'CONFLICT' });
    const short = await charge(uuidv7(), renter.sub, owner.sub).catch((err) => err);
    expect(short).toMatchObject({ status: 409, code: 'INSUFFICIENT_BALANCE' });
    expect(await balance(renter)).toMatchObject({ available: 10_000 - AMOUNT, frozen: AMOUNT });

    const notCaller = await wallet.internalAs('notify').call(chargeOrderEscrow, { params: { id: uuidv7() }, body: { renter_id: renter.sub, owner_id: owner.sub, amount: 1 } }).catch((err) => err);
    expect(notCaller).toMatchObject({ status: 403 });
  });

  it('settles order.completed from its figures once, however often it is delivered, and publishes wallet.settled', async () => {
    const { user: renter } = await funded(10_000);
    const owner = asUser();
    const orderId = uuidv7();
    await charge(orderId, renter.sub, owner.sub);
    const data = completed(orderId, renter.sub, owner.sub, 1200);
    const first = await wallet.publish('order.completed', data);
    await wallet.publish('order.completed', data, first.id);
    // a second envelope of the same end (the orders relay writing it again) moves nothing either
    await wallet.publish('order.completed', data);

    const [settled] = await wallet.awaitPublished('wallet.settled', (e) => e.data.order_id === orderId);
    expect(settled!.data).toMatchObject({ ended_by: 'order.completed', outcome: 'settled', released: AMOUNT, owner_income: 1140, platform_fee: 60, refund: 5400 });
    // a later event is handled after all three (one at a time, in order): by then every copy has been taken
    const marker = uuidv7();
    await charge(marker, renter.sub, owner.sub, 100);
    await wallet.publish('order.cancelled', { ...completed(marker, renter.sub, owner.sub, 0), status: 'cancelled', amount: 100, rent: 0, deposit: 100 });
    await wallet.awaitPublished('wallet.settled', (e) => e.data.order_id === marker);

    expect(wallet.published('wallet.settled', (e) => e.data.order_id === orderId)).toHaveLength(1);
    expect(await balance(renter)).toEqual(expect.objectContaining({ available: 10_000 - AMOUNT + 5400, frozen: 0 }));
    expect(await balance(owner)).toEqual(expect.objectContaining({ available: 1140, frozen: 0 }));
  });
});
