import type { EventHandlers, EventWriter } from '@market/shared';
import { bringOwnerListingsBack } from '../application/bring-owner-listings-back';
import { rentalEnded, rentalStarted } from '../application/track-rentals';
import { takeOwnerListingsOffline } from '../application/take-owner-listings-offline';

/** What catalog does with other services' events; the kit runs each in one transaction with its inbox row. */
export function catalogEventHandlers(events: EventWriter): EventHandlers {
  return {
    'user.frozen': (event, manager) => takeOwnerListingsOffline(manager, events, event.data),
    'user.unfrozen': (event, manager) => bringOwnerListingsBack(manager, events, event.data),
    'order.created': (event, manager) => rentalStarted(manager, event.data.order_id, event.data.listing_id),
    'order.cancelled': (event, manager) => rentalEnded(manager, event.data.order_id, event.data.listing_id),
    'order.closed': (event, manager) => rentalEnded(manager, event.data.order_id, event.data.listing_id),
    'order.completed': (event, manager) => rentalEnded(manager, event.data.order_id, event.data.listing_id),
  };
}
