import { type InternalInput, type orderMoneyFacts } from '@market/contracts';
import { isActive } from '../domain/order-state';
import { ordersAfter, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';

/**
 * What an order's end should pay out of its escrow, as the wallet is told it: a paid order that was
 * cancelled gets everything back; a completed or closed one is split as its stored checkout (or
 * arbitration) says, a close without figures being a full refund. Null while it runs or when it
 * ended unpaid.
 */
function payoutOf(order: OrderRow) {
  if (isActive(order.status) || order.paid_at === null) return null;
  const amount = Number(order.amount);
  if (order.status === 'cancelled' || order.checkout === null) return { owner: 0, platform: 0, renter: amount };
  return { owner: order.checkout.owner_income, platform: order.checkout.platform_fee, renter: order.checkout.refund };
}

/** One page of every order's money facts for money:verify (called by admin). */
export async function readMoneyFacts(deps: OrdersDeps, query: InternalInput<typeof orderMoneyFacts>['query']) {
  const rows = await ordersAfter(deps.db, query.after ?? null, query.limit);
  return {
    items: rows.map((order) => ({
      order_id: order.id,
      status: order.status,
      amount: Number(order.amount),
      paid: order.paid_at !== null,
      charge_pending: order.charge_deadline_at !== null,
      ended_at: isActive(order.status) ? null : order.status_changed_at.toISOString(),
      payout: payoutOf(order),
    })),
    next_after: rows.length === query.limit ? rows[rows.length - 1]!.id : null,
  };
}
