import { reconcileMoney, type EscrowMoney, type MoneyFacts, type OrderMoney } from '../src/domain/money-reconciliation';

/** The rules of money:verify on hand-made facts: each rule's mismatch, with its id and fen, and none for agreeing facts. */
const READ_FROM = new Date('2026-11-25T12:00:00.000Z');
const NOW = new Date('2026-11-25T12:00:05.000Z');
const EARLIER = '2026-11-25T11:00:00.000Z';
const DEADLINE_MS = 600_000;

let n = 0;
const id = () => `0193a1b2-7c3d-7e4f-8a9b-${String((n += 1)).padStart(12, '0')}`;

function order(over: Partial<OrderMoney> = {}): OrderMoney {
  return { order_id: id(), status: 'in_use', amount: 7400, paid: true, charge_pending: false, ended_at: null, payout: null, ...over };
}
function escrow(o: OrderMoney, over: Partial<EscrowMoney> = {}): EscrowMoney {
  return { order_id: o.order_id, status: 'held', charged: o.amount, charges: 1, to_owner: 0, to_platform: 0, to_renter: 0, charged_at: EARLIER, ended_at: null, ...over };
}
const check = (orders: OrderMoney[], escrows: EscrowMoney[], recharges: MoneyFacts['recharges'] = []) =>
  reconcileMoney({ orders, escrows, recharges, ordersReadFrom: READ_FROM }, NOW, DEADLINE_MS);

describe('money:verify rules', () => {
  it('finds nothing when every order agrees with its escrow', () => {
    const running = order();
    const completed = order({ status: 'completed', ended_at: EARLIER, payout: { owner: 2280, platform: 120, renter: 5000 } });
    const unpaid = order({ status: 'pending_payment', paid: false });
    const cancelledUnpaid = order({ status: 'cancelled', paid: false, ended_at: EARLIER });
    const settling = order({ status: 'completed', ended_at: '2026-11-25T11:59:00.000Z', payout: { owner: 2280, platform: 120, renter: 5000 } });
    const pendingCharge = order({ status: 'pending_payment', paid: false, charge_pending: true });
    expect(
      check(
        [running, completed, unpaid, cancelledUnpaid, settling, pendingCharge],
        [
          escrow(running),
          escrow(completed, { status: 'settled', to_owner: 2280, to_platform: 120, to_renter: 5000, ended_at: EARLIER }),
          escrow(cancelledUnpaid, { status: 'void', charged: 0, charges: 0 }),
          escrow(settling),
          escrow(pendingCharge),
        ],
      ),
    ).toEqual([]);
  });

  it('names each disagreement with the order id and the fen', () => {
    const uncharged = order();
    const twice = order();
    const wrongSplit = order({ status: 'completed', ended_at: EARLIER, payout: { owner: 2280, platform: 120, renter: 5000 } });
    const stuck = order({ status: 'closed', ended_at: EARLIER, payout: { owner: 0, platform: 0, renter: 7400 } });
    const chargedUnpaid = order({ status: 'pending_payment', paid: false });
    const stranger = order();
    const found = check(
      [uncharged, twice, wrongSplit, stuck, chargedUnpaid],
      [
        escrow(twice, { charged: 14_800, charges: 2 }),
        escrow(wrongSplit, { status: 'settled', to_owner: 2380, to_platform: 20, to_renter: 5000, ended_at: EARLIER }),
        escrow(stuck),
        escrow(chargedUnpaid),
        escrow(stranger),
      ],
      [{ payment_id: id(), status: 'succeeded', amount: 5000, credited: 10_000, credits: 2 }],
    );
    expect(found.map((m) => [m.id, m.fen])).toEqual([
      [uncharged.order_id, 7400],
      [twice.order_id, -7400],
      [wrongSplit.order_id, 200],
      [stuck.order_id, 7400],
      [chargedUnpaid.order_id, 7400],
      [stranger.order_id, 7400],
      [expect.any(String), -5000],
    ]);
  });

  it('excuses a charge whose outcome orders has not learnt only while the order waits for payment', () => {
    // an order held abnormal while its charge was open: the charge landed, the order is not paid
    const stranded = order({ status: 'abnormal', paid: false, charge_pending: true });
    const waiting = order({ status: 'pending_payment', paid: false, charge_pending: true });
    expect(check([stranded, waiting], [escrow(stranded), escrow(waiting)])).toEqual([
      { check: 'the wallet charged an order that is not paid', id: stranded.order_id, fen: 7400, detail: 'order abnormal, escrow held' },
    ]);
  });

  it('does not report what changed while it read: a charge or a payout after the orders were read', () => {
    const paidLate = order({ status: 'pending_payment', paid: false });
    const endedLate = order();
    const createdLate = order();
    expect(
      check(
        [paidLate, endedLate],
        [
          escrow(paidLate, { charged_at: NOW.toISOString() }),
          escrow(endedLate, { status: 'settled', ended_at: NOW.toISOString() }),
          escrow(createdLate, { charged_at: NOW.toISOString() }),
        ],
      ),
    ).toEqual([]);
  });
});
