import type { EventHandlers } from '@market/shared/events';
import { endOrderGrants } from '../application/end-order-grants';

/** What files does with other services' events; the kit runs each in one transaction with its inbox row. */
export function filesEventHandlers(): EventHandlers {
  return {
    'order.completed': (event, tx) => endOrderGrants(tx, event.data.order_id),
    'order.closed': (event, tx) => endOrderGrants(tx, event.data.order_id),
    'order.cancelled': (event, tx) => endOrderGrants(tx, event.data.order_id),
  };
}
