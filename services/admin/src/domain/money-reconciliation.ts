import type { escrowMoneyFacts, InternalResult, orderMoneyFacts, rechargeDiscrepancies } from '@market/contracts';

export type OrderMoney = InternalResult<typeof orderMoneyFacts>['items'][number];
export type EscrowMoney = InternalResult<typeof escrowMoneyFacts>['items'][number];
export type RechargeDiscrepancy = InternalResult<typeof rechargeDiscrepancies>['items'][number];

/** One disagreement between the orders and the wallet, with the id it concerns and the fen involved. */
export interface MoneyMismatch {
  check: string;
  id: string;
  fen: number;
  detail: string;
}

export interface MoneyFacts {
  orders: OrderMoney[];
  escrows: EscrowMoney[];
  recharges: RechargeDiscrepancy[];
  /** when reading the orders began: the wallet is read after, so what changed between is not a mismatch */
  ordersReadFrom: Date;
}

const before = (at: string | null, limit: Date) => at !== null && Date.parse(at) < limit.getTime();

/** An order and its escrow (if the wallet has one) against the rules of issue 19's money:verify. */
function checkOrder(order: OrderMoney, escrow: EscrowMoney | undefined, facts: MoneyFacts, now: Date, deadlineMs: number): MoneyMismatch[] {
  const id = order.order_id;
  const charged = escrow && escrow.status !== 'void' ? escrow.charged : 0;
  const charges = escrow?.charges ?? 0;
  const found: MoneyMismatch[] = [];
  if (order.paid && (charges !== 1 || charged !== order.amount)) {
    found.push({ check: 'a paid order has exactly one charge of its amount', id, fen: order.amount - charged, detail: `${charges} charge(s) of ${charged} for ${order.amount}` });
  }
  if (charged === 0 || !escrow) return found;
  const chargedBeforeRead = before(escrow.charged_at, facts.ordersReadFrom);
  if (order.ended_at === null) {
    // a charge orders has not learnt the outcome of is excused only while the order waits for it: the
    // reconciler records it on a pending_payment order alone, so in any other state it is stranded
    const awaitingCharge = order.charge_pending && order.status === 'pending_payment';
    if (!order.paid && !awaitingCharge && chargedBeforeRead) {
      found.push({ check: 'the wallet charged an order that is not paid', id, fen: charged, detail: `order ${order.status}, escrow ${escrow.status}` });
    }
    if (escrow.status !== 'held' && before(escrow.ended_at, facts.ordersReadFrom)) {
      found.push({ check: 'the escrow of a running order was paid out', id, fen: charged, detail: `order ${order.status}, escrow ${escrow.status}` });
    }
    return found;
  }
  if (escrow.status === 'held') {
    if (now.getTime() - Date.parse(order.ended_at) > deadlineMs) {
      found.push({ check: 'no escrow is held for an ended order past the settlement deadline', id, fen: charged, detail: `order ${order.status} at ${order.ended_at}` });
    }
    return found;
  }
  // an order that ended unpaid, charged in a race with its end, gets all of it back
  const expected = order.payout ?? { owner: 0, platform: 0, renter: charged };
  const off = Math.abs(escrow.to_owner - expected.owner) + Math.abs(escrow.to_platform - expected.platform) + Math.abs(escrow.to_renter - expected.renter);
  if (off !== 0) {
    found.push({
      check: 'an ended order’s escrow is paid out exactly as its checkout or arbitration says',
      id,
      fen: off,
      detail: `paid owner ${escrow.to_owner}, platform ${escrow.to_platform}, renter ${escrow.to_renter}; the order says ${expected.owner}, ${expected.platform}, ${expected.renter}`,
    });
  }
  return found;
}

/**
 * Every disagreement between what orders says happened and what the wallet moved: a paid order
 * without exactly one charge of its amount, money charged for an order not paid, an ended order's
 * escrow paid out otherwise than its figures or still held past the settlement deadline, money held
 * for an order orders does not know, and recharges not credited exactly once. Empty when they agree.
 */
export function reconcileMoney(facts: MoneyFacts, now: Date, settlementDeadlineMs: number): MoneyMismatch[] {
  const escrows = new Map(facts.escrows.map((e) => [e.order_id, e]));
  const found: MoneyMismatch[] = [];
  for (const order of facts.orders) {
    found.push(...checkOrder(order, escrows.get(order.order_id), facts, now, settlementDeadlineMs));
    escrows.delete(order.order_id);
  }
  for (const escrow of escrows.values()) {
    if (escrow.status !== 'void' && escrow.charged > 0 && before(escrow.charged_at, facts.ordersReadFrom)) {
      found.push({ check: 'the wallet holds money only for orders that exist', id: escrow.order_id, fen: escrow.charged, detail: `escrow ${escrow.status}` });
    }
  }
  for (const r of facts.recharges) {
    found.push({ check: 'every recharge is credited once, by its amount', id: r.payment_id, fen: r.amount - r.credited, detail: `${r.status}, ${r.credits} credit(s) of ${r.credited}` });
  }
  return found;
}
