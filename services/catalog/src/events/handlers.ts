import type { EventType } from '@market/contracts';
import type { DomainEvent, EventHandlers, EventRunHandler, EventWriter } from '@market/shared/events';
import { bringOwnerListingsBack, takeOwnerListingsOffline } from '../application/owner-standing-moves';
import { ratingPublished } from '../application/count-ratings';
import { recordRentals, rentalEnded, rentalHandedOver, rentalStarted, type RentalEvent } from '../application/track-rentals';

/**
 * What catalog does with other services' events; the kit runs each batch in one transaction with its
 * inbox rows. A batch's run of order events of one type is recorded together: their listings locked
 * in one statement.
 */
export function catalogEventHandlers(events: EventWriter): EventHandlers {
  const rentals = <T extends EventType>(of: (event: DomainEvent<T>) => RentalEvent): EventRunHandler<T> => ({
    together: (run, tx) => recordRentals(tx, events, run.map(of)),
  });
  return {
    'user.frozen': (event, tx) => takeOwnerListingsOffline(tx, events, event.data),
    'user.unfrozen': (event, tx) => bringOwnerListingsBack(tx, events, event.data),
    'order.created': rentals<'order.created'>((event) => rentalStarted(event.data.order_id, event.data.listing_id)),
    'order.handed_off': rentals<'order.handed_off'>((event) => rentalHandedOver(event.data.order_id, event.data.listing_id)),
    'order.cancelled': rentals<'order.cancelled'>((event) => rentalEnded(event.data.order_id, event.data.listing_id, event.occurred_at, false)),
    'order.closed': rentals<'order.closed'>((event) => rentalEnded(event.data.order_id, event.data.listing_id, event.occurred_at, false)),
    'order.completed': rentals<'order.completed'>((event) => rentalEnded(event.data.order_id, event.data.listing_id, event.occurred_at, true)),
    'order.rating_published': (event, tx) => ratingPublished(tx, event.data),
  };
}
