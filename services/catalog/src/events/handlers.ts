import type { EventHandlers, EventWriter } from '@market/shared/events';
import { bringOwnerListingsBack, takeOwnerListingsOffline } from '../application/owner-standing-moves';
import { ratingPublished } from '../application/count-ratings';
import { rentalEnded, rentalHandedOver, rentalStarted } from '../application/track-rentals';

/** What catalog does with other services' events; the kit runs each in one transaction with its inbox row. */
export function catalogEventHandlers(events: EventWriter): EventHandlers {
  return {
    'user.frozen': (event, tx) => takeOwnerListingsOffline(tx, events, event.data),
    'user.unfrozen': (event, tx) => bringOwnerListingsBack(tx, events, event.data),
    'order.created': (event, tx) => rentalStarted(tx, events, event.data.order_id, event.data.listing_id),
    'order.handed_off': (event, tx) => rentalHandedOver(tx, events, event.data.order_id, event.data.listing_id),
    'order.cancelled': (event, tx) => rentalEnded(tx, events, event.data.order_id, event.data.listing_id, event.occurred_at, false),
    'order.closed': (event, tx) => rentalEnded(tx, events, event.data.order_id, event.data.listing_id, event.occurred_at, false),
    'order.completed': (event, tx) => rentalEnded(tx, events, event.data.order_id, event.data.listing_id, event.occurred_at, true),
    'order.rating_published': (event, tx) => ratingPublished(tx, event.data),
  };
}
