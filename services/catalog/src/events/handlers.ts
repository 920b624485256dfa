import type { DomainEvent, EventHandlers, EventRunHandler, EventWriter } from '@market/shared/events';
import { bringOwnerListingsBack, takeOwnerListingsOffline } from '../application/owner-standing-moves';
import { ratingPublished } from '../application/count-ratings';
import { recordRentals, rentalEnded, rentalHandedOver, rentalStarted, type RentalEvent } from '../application/track-rentals';

type RentalEventType = 'order.created' | 'order.handed_off' | 'order.cancelled' | 'order.closed' | 'order.completed';

/** What each order event changes of its listing's rentals. */
const rentalOf: { [T in RentalEventType]: (event: DomainEvent<T>) => RentalEvent } = {
  'order.created': (event) => rentalStarted(event.data.order_id, event.data.listing_id),
  'order.handed_off': (event) => rentalHandedOver(event.data.order_id, event.data.listing_id),
  'order.cancelled': (event) => rentalEnded(event.data.order_id, event.data.listing_id, event.occurred_at, false),
  'order.closed': (event) => rentalEnded(event.data.order_id, event.data.listing_id, event.occurred_at, false),
  'order.completed': (event) => rentalEnded(event.data.order_id, event.data.listing_id, event.occurred_at, true),
};

/**
 * What catalog does with other services' events; the kit runs each batch in one transaction with its
 * inbox rows. One handler takes every order event that changes a rental, so a batch's run of them,
 * whatever their types, is recorded together: their listings locked in one statement.
 */
export function catalogEventHandlers(events: EventWriter): EventHandlers {
  const rentals: EventRunHandler<RentalEventType> = {
    together: (run, tx) => recordRentals(tx, events, run.map((event) => (rentalOf[event.type] as (e: DomainEvent<RentalEventType>) => RentalEvent)(event))),
  };
  return {
    'user.frozen': (event, tx) => takeOwnerListingsOffline(tx, events, event.data),
    'user.unfrozen': (event, tx) => bringOwnerListingsBack(tx, events, event.data),
    'order.created': rentals,
    'order.handed_off': rentals,
    'order.cancelled': rentals,
    'order.closed': rentals,
    'order.completed': rentals,
    'order.rating_published': (event, tx) => ratingPublished(tx, event.data),
  };
}
