import type { EventHandlers, EventRunHandler } from '@market/shared/events';
import { endOrderGrants } from '../application/end-order-grants';

/**
 * What files does with other services' events; the kit runs each batch in one transaction with its
 * inbox rows, and a batch's run of order ends (of any of the three types) ends its orders' grants together.
 */
export function filesEventHandlers(): EventHandlers {
  const ended: EventRunHandler<'order.completed' | 'order.closed' | 'order.cancelled'> = {
    together: (events, tx) => endOrderGrants(tx, events.map((event) => event.data.order_id)),
  };
  return { 'order.completed': ended, 'order.closed': ended, 'order.cancelled': ended };
}
