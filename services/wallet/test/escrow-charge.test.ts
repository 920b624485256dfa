import { v7 as uuidv7 } from 'uuid';
import { chargeOrderEscrow, chargeOrderRenewal, LedgerEntry, orderChargeStatus, orderEscrow, renewalChargeStatus, WalletBalance } from '@market/contracts';
import { RemoteRefusal } from '@market/shared/http';
import { api, outboxEvents, internalClientAs, startStack, type Stack } from '@market/testkit';
import { orderEscrow as accountOfEscrow, userAvailable } from '../src/domain/accounts';
import { escrowClaim } from '../src/persistence/escrow-repository';
import { findLedgerDifferences } from '../src/persistence/ledger-audit';
import { planTransfers, withLedgerWrite } from '../src/persistence/ledger-repository';
import { balanceOf, ledgerSum, newAdmin, newUser, recharge } from './support';

describe('paying an order from the wallet (internal charge)', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    stack = await startStack({ services: ['wallet', 'admin'] });
    client = api(stack.url);
  });
  afterAll(() => stack?.stop());

  const charge = (orderId: string, body: { renter_id: string; owner_id: string; amount: number; not_after?: string }) =>
    internalClientAs(stack, 'orders').call(chargeOrderEscrow, { params: { id: orderId }, body });
  const chargeStatus = (orderId: string) => internalClientAs(stack, 'orders').call(orderChargeStatus, { params: { id: orderId } });
  /** A renter with `funds` on the wallet, an owner, and the id of a new order between them. */
  async function fundedOrder(funds: number) {
    const renter = newUser();
    await recharge(stack, renter, funds);
    return { renter, owner: newUser(), orderId: uuidv7() };
  }

  it('refuses a charge met after its not_after and answers its status from one clock, so "not charged" after the deadline is final (ADR 0028)', async () => {
    const { renter, owner, orderId } = await fundedOrder(10_000);
    const before = await chargeStatus(orderId);
    expect(before).toMatchObject({ order_id: orderId, status: 'not_charged', charge: null });
    const late = await charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 2_000, not_after: new Date(Date.now() - 1000).toISOString() }).catch((e: RemoteRefusal) => e);
    expect(late).toMatchObject({ status: 409, code: 'CHARGE_EXPIRED' });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 10_000, frozen: 0 });
    const after = await chargeStatus(orderId);
    expect(after.status).toBe('not_charged');
    expect(Date.parse(after.as_of)).toBeGreaterThan(Date.parse(before.as_of));

    const inTime = await charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 2_000, not_after: new Date(Date.now() + 60_000).toISOString() });
    // a repeat answers the charge made, even past its deadline: the deadline only stops new charges
    const repeated = await charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 2_000, not_after: new Date(Date.now() - 1000).toISOString() });
    expect(repeated).toEqual(inTime);
    expect(await chargeStatus(orderId)).toMatchObject({ status: 'charged', charge: inTime });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 8_000, frozen: 2_000 });
  });

  it('moves rent + deposit from available into the order escrow, shows it as frozen, and writes payment.succeeded', async () => {
    const { renter, owner, orderId } = await fundedOrder(20_000);
    const charged = await charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 12_345 });
    expect(charged).toMatchObject({ order_id: orderId, renter_id: renter.id, amount: 12_345 });

    const balance = await balanceOf(stack, renter);
    expect(WalletBalance.strict().parse(balance)).toEqual({ available: 7_655, frozen: 12_345, currency: 'CNY' });
    expect(await internalClientAs(stack, 'orders').call(orderEscrow, { params: { id: orderId } })).toEqual({ order_id: orderId, charged: 12_345, held: 12_345 });

    const ledger = await client.get('/api/wallet/ledger', renter.token);
    expect(ledger.status).toBe(200);
    expect(ledger.body.items.map((e: unknown) => LedgerEntry.strict().parse(e))).toEqual([
      expect.objectContaining({ user_id: renter.id, order_id: orderId, biz_type: 'order_payment', amount: -12_345, balance_after: 7_655 }),
      expect.objectContaining({ user_id: renter.id, order_id: null, biz_type: 'recharge', amount: 20_000, balance_after: 20_000 }),
    ]);
    const paid = (await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.order_id === orderId);
    expect(paid.map((e) => e.data)).toEqual([
      expect.objectContaining({ payment_id: charged.payment_id, user_id: renter.id, amount: 12_345, purpose: 'order', gateway_txn_id: null }),
    ]);
    expect(await ledgerSum(stack)).toBe(0);
  });

  it('charges once when orders repeats the call, and 20 concurrent charges of one order charge once', async () => {
    const { renter, owner, orderId } = await fundedOrder(10_000);
    const body = { renter_id: renter.id, owner_id: owner.id, amount: 3_000 };
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => charge(orderId, body)));
    const charges = results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason));
    expect(charges.every((c) => c.payment_id === charges[0].payment_id)).toBe(true);
    const again = await charge(orderId, body);
    expect(again).toEqual(charges[0]);

    expect(await balanceOf(stack, renter)).toMatchObject({ available: 7_000, frozen: 3_000 });
    const payments = await client.get(`/api/wallet/ledger?biz_type=order_payment&order_id=${orderId}`, renter.token);
    expect(payments.body.items).toHaveLength(1);
    const events = (await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.order_id === orderId);
    expect(events).toHaveLength(1);
  });

  it('refuses a charge larger than the available balance with 409 INSUFFICIENT_BALANCE and moves nothing', async () => {
    const { renter, orderId } = await fundedOrder(1_000);
    const refused = await charge(orderId, { renter_id: renter.id, owner_id: uuidv7(), amount: 1_001 }).catch((e: RemoteRefusal) => e);
    expect(refused).toBeInstanceOf(RemoteRefusal);
    expect(refused).toMatchObject({ status: 409, code: 'INSUFFICIENT_BALANCE' });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 1_000, frozen: 0 });
    expect(await internalClientAs(stack, 'orders').find(orderEscrow, { params: { id: orderId } })).toBeNull();

    const neverRecharged = newUser();
    await expect(charge(uuidv7(), { renter_id: neverRecharged.id, owner_id: uuidv7(), amount: 1 })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    // a retry with enough money then succeeds: the refused attempt left no claim behind
    await recharge(stack, renter, 100);
    await expect(charge(orderId, { renter_id: renter.id, owner_id: uuidv7(), amount: 1_001 })).resolves.toMatchObject({ amount: 1_001 });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 99, frozen: 1_001 });
    // the refused attempt's payment.succeeded went with its claim: only the paid charge announced one
    expect((await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.order_id === orderId)).toHaveLength(1);
  });


  it('moves no money when the order ends between the charge reading no record and writing its own (ADR 0084)', async () => {
    const { renter, owner, orderId } = await fundedOrder(5_000);
    const db = stack.services.wallet!.ctx.db;
    // the order's end, as settlement writes it for an order never charged, held open until told
    let endNow!: () => void;
    const endHeld = new Promise<void>((resolve) => (endNow = resolve));
    let written!: () => void;
    const endWritten = new Promise<void>((resolve) => (written = resolve));
    const ending = db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO order_escrows (order_id, renter_id, owner_id, amount, status, ended_at, end_event) VALUES ($1, $2, $3, 0, 'void', now(), 'order.cancelled')`,
        [orderId, renter.id, owner.id],
      );
      written();
      await endHeld;
    });
    await endWritten;
    const charging = charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 4_000 }).catch((e: unknown) => e);
    // the charge has read no record, locked the renter's account and waits on the end's row
    for (let waited = 0; ; waited += 20) {
      const waiting = await db.query(
        `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO order_escrows%' AND query LIKE '%written_transfers%'`,
      );
      if (waiting.length > 0) break;
      if (waited > 10_000) throw new Error('the charge never reached its write');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    endNow();
    await ending;

    expect(await charging).toMatchObject({ status: 409, code: 'INVALID_STATE' });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 5_000, frozen: 0 });
    const entries = await db.query(`SELECT 1 FROM entries WHERE order_id = $1`, [orderId]);
    expect(entries).toHaveLength(0);
    expect((await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.order_id === orderId)).toHaveLength(0);
    expect(await ledgerSum(stack)).toBe(0);
  });

  it('writes a ledger move beside a change only when the change answers a row, even in a transaction that commits (ADR 0084)', async () => {
    const { renter, owner, orderId } = await fundedOrder(5_000);
    await charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 1_000 });
    const { db, events } = stack.services.wallet!.ctx;
    const move = { from: userAvailable(renter.id), to: accountOfEscrow(orderId), amount: 2_000, bizType: 'order_payment' as const, orderId, paymentId: null };
    const claims = await db.transaction(async (tx) => {
      const write = await planTransfers(tx, [move]);
      // the order has its record: the claim answers nothing, and the move beside it writes nothing
      const again = escrowClaim({ order_id: orderId, renter_id: renter.id, owner_id: owner.id, amount: 2_000, payment_id: uuidv7(), charged_at: new Date() });
      return events.publishAllWith(tx, withLedgerWrite(again, write), []);
    });
    expect(claims).toHaveLength(0);
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 4_000, frozen: 1_000 });
    expect(await ledgerSum(stack)).toBe(0);
  });
  it('charges a renewal into the held escrow once by its id, refuses a short balance, a late or a conflicting one, and an ended escrow (ADR 0065)', async () => {
    const { renter, owner, orderId } = await fundedOrder(10_000);
    await charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 3_000 });
    const orders = internalClientAs(stack, 'orders');
    const renew = (renewalId: string, amount: number, notAfter = new Date(Date.now() + 60_000)) =>
      orders.call(chargeOrderRenewal, { params: { id: orderId, renewal_id: renewalId }, body: { renter_id: renter.id, amount, not_after: notAfter.toISOString() } });
    const status = (renewalId: string) => orders.call(renewalChargeStatus, { params: { id: orderId, renewal_id: renewalId } });

    const renewalId = uuidv7();
    expect(await status(renewalId)).toMatchObject({ renewal_id: renewalId, status: 'not_charged', charge: null });
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => renew(renewalId, 1_600)));
    expect(new Set(concurrent.map((c) => c.payment_id)).size).toBe(1);
    expect(concurrent[0]).toMatchObject({ order_id: orderId, renewal_id: renewalId, renter_id: renter.id, amount: 1_600 });
    expect(await status(renewalId)).toMatchObject({ status: 'charged', charge: concurrent[0] });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 5_400, frozen: 4_600 });
    expect(await orders.call(orderEscrow, { params: { id: orderId } })).toEqual({ order_id: orderId, charged: 4_600, held: 4_600 });
    const paid = (await outboxEvents(stack, 'wallet', 'payment.succeeded')).filter((e) => e.data.order_id === orderId);
    expect(paid.map((e) => e.data.amount).sort()).toEqual([1_600, 3_000]);

    await expect(renew(renewalId, 800)).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    await expect(renew(uuidv7(), 5_401)).rejects.toMatchObject({ status: 409, code: 'INSUFFICIENT_BALANCE' });
    await expect(renew(uuidv7(), 100, new Date(Date.now() - 1_000))).rejects.toMatchObject({ status: 409, code: 'CHARGE_EXPIRED' });
    await expect(orders.call(chargeOrderRenewal, { params: { id: uuidv7(), renewal_id: uuidv7() }, body: { renter_id: renter.id, amount: 100, not_after: new Date(Date.now() + 60_000).toISOString() } }))
      .rejects.toMatchObject({ status: 404 });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 5_400, frozen: 4_600 });
    // every ledger rule holds with the renewal counted: one charge of the order and one of its renewal, all of it held
    expect(await findLedgerDifferences(stack.services.wallet!.ctx.db)).toEqual([]);
    expect(await ledgerSum(stack)).toBe(0);
  });

  it('refuses the same order id with another amount or renter (409 CONFLICT)', async () => {
    const { renter, owner, orderId } = await fundedOrder(5_000);
    await charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 1_000 });
    await expect(charge(orderId, { renter_id: renter.id, owner_id: owner.id, amount: 2_000 })).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    await expect(charge(orderId, { renter_id: newUser().id, owner_id: owner.id, amount: 1_000 })).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(await balanceOf(stack, renter)).toMatchObject({ available: 4_000, frozen: 1_000 });
  });

  it('pages the ledger newest first and filters it; the back office sees every user’s lines', async () => {
    const renter = newUser();
    for (const amount of [100, 200, 300, 400, 500]) await recharge(stack, renter, amount);
    const first = await client.get('/api/wallet/ledger?limit=2', renter.token);
    expect(first.body.items.map((e: { amount: number }) => e.amount)).toEqual([500, 400]);
    const second = await client.get(`/api/wallet/ledger?limit=2&cursor=${first.body.next_cursor}`, renter.token);
    expect(second.body.items.map((e: { amount: number }) => e.amount)).toEqual([300, 200]);
    const third = await client.get(`/api/wallet/ledger?limit=2&cursor=${second.body.next_cursor}`, renter.token);
    expect(third.body).toMatchObject({ items: [expect.objectContaining({ amount: 100, balance_after: 100 })], next_cursor: null });

    expect((await client.get('/api/wallet/ledger?biz_type=order_payment', renter.token)).body.items).toEqual([]);
    expect((await client.get('/api/wallet/ledger?order_id=not-an-id', renter.token)).body.items).toEqual([]);
    expect((await client.get('/api/wallet/ledger?biz_type=nope', renter.token)).status).toBe(400);
    expect((await client.get('/api/wallet/ledger?cursor=eyJ2IjoieCIsImlkIjoieSJ9', renter.token)).status).toBe(400);

    const admin = await newAdmin(stack);
    const all = await client.get(`/api/admin/wallet/ledger?user_id=${renter.id}&biz_type=recharge&limit=3`, admin.token);
    expect(all.status).toBe(200);
    expect(all.body.items.map((e: { user_id: string; amount: number }) => [e.user_id, e.amount])).toEqual([
      [renter.id, 500],
      [renter.id, 400],
      [renter.id, 300],
    ]);
    expect((await client.get('/api/admin/wallet/ledger', renter.token)).status).toBe(401);
    expect((await client.get('/api/wallet/ledger', admin.token)).status).toBe(401);
  });
});
