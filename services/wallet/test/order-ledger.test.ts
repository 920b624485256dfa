import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow, orderLedger } from '@market/contracts';
import { internalClientAs, startStack, type Stack } from '@market/testkit';
import { newUser, recharge } from './support';

describe('the money of one order for the back office (internal orderLedger)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['wallet'] });
  });
  afterAll(() => stack?.stop());

  it('gives orders the payment, the held escrow and the users’ entries of a charged order, and nothing for an uncharged one', async () => {
    const renter = newUser();
    const owner = newUser();
    await recharge(stack, renter, 10_000);
    const orderId = uuidv7();
    const charged = await internalClientAs(stack, 'orders').call(chargeOrderEscrow, { params: { id: orderId }, body: { renter_id: renter.id, owner_id: owner.id, amount: 7_400 } });

    const money = await internalClientAs(stack, 'orders').call(orderLedger, { params: { id: orderId } });
    expect(money).toEqual({
      order_id: orderId,
      payments: [{ id: charged.payment_id, amount: 7_400, paid_at: charged.charged_at }],
      escrow: { charged: 7_400, held: 7_400, status: 'held', ended_at: null },
      entries: [expect.objectContaining({ user_id: renter.id, order_id: orderId, biz_type: 'order_payment', amount: -7_400, balance_after: 2_600 })],
    });
    const none = await internalClientAs(stack, 'orders').call(orderLedger, { params: { id: uuidv7() } });
    expect(none).toMatchObject({ payments: [], escrow: null, entries: [] });
  });

  it('refuses every service but orders with 403', async () => {
    const asCatalog = internalClientAs(stack, 'catalog');
    await expect(asCatalog.call(orderLedger, { params: { id: uuidv7() } })).rejects.toMatchObject({ status: 403 });
  });
});
