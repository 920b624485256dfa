import type { OrdersDeps } from './deps';
import { claimEndingOrder } from '../persistence/end-reminder-repository';

/**
 * Reminds the renters whose rental ends within `order.end_reminder_minutes` (docs/rules.md §4), one
 * transaction per order: the reminder's mark and its `order.ending_soon` event commit together, and
 * replicas skip the orders another one holds, so each end time is reminded once (a renewal's new end
 * again). An order whose end has passed is not reminded.
 */
export async function remindEndingOrders(deps: OrdersDeps, maxOrders = 200): Promise<number> {
  const settings = await deps.settings.current(deps.db);
  let reminded = 0;
  while (reminded < maxOrders) {
    const now = new Date();
    const until = new Date(now.getTime() + settings['order.end_reminder_minutes'] * deps.minuteMs);
    const done = await deps.db.transaction(async (tx) => {
      const order = await claimEndingOrder(tx, now, until);
      if (!order) return false;
      await deps.events.publish(tx, 'order.ending_soon', {
        order_id: order.id,
        listing_id: order.listing_id,
        listing_title: order.listing_title,
        renter_id: order.renter_id,
        owner_id: order.owner_id,
        ends_at: order.ends_at.toISOString(),
      });
      return true;
    });
    if (!done) break;
    reminded += 1;
  }
  return reminded;
}
