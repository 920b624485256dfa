import { isUuid, type Tx } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import { findListing } from '../persistence/listing-repository';
import { lockListingsForRentals, recordRental, rentalEnd, rentalHandover, rentalStart, type RentalChange } from '../persistence/rental-repository';
import { listingSnapshot } from './listing-moves';

/** What one order event changes of its listing's rentals. */
export interface RentalEvent {
  orderId: string;
  listingId: string;
  change: RentalChange;
}

/** An order on the listing is active from its creation (orders decides availability; we show it). */
export function rentalStarted(orderId: string, listingId: string): RentalEvent {
  return { orderId, listingId, change: rentalStart(new Date()) };
}

/** The order handed the account over (its end may have been handled already). */
export function rentalHandedOver(orderId: string, listingId: string): RentalEvent {
  return { orderId, listingId, change: rentalHandover() };
}

/**
 * The order was cancelled, closed or completed (at `endedAt`, orders' time): the listing is free
 * again unless another order is active. A completed order always went through a handover.
 */
export function rentalEnded(orderId: string, listingId: string, endedAt: string, completed: boolean): RentalEvent {
  return { orderId, listingId, change: rentalEnd(new Date(), new Date(endedAt), completed) };
}

/**
 * Records order events' rental changes, in delivery order. Order events on one listing are handled
 * concurrently, under READ COMMITTED. Every listing of the events is locked before anything is read
 * or written, all of them in one statement and in id order (so two batches cannot lock them
 * crosswise), so a second handler waits for the first to commit and then sees its rental row;
 * otherwise an order ending while another starts could recompute `rented` from a snapshot that
 * misses the new order and leave it false during an active order. `awaiting_rotation` is derived
 * the same way, from whatever of an order's handover and end has arrived, in either order; when it
 * turns on, the owner is told to change the password (ADR 0066).
 */
export async function recordRentals(tx: Tx, events: EventWriter, rentals: readonly RentalEvent[]) {
  const valid = rentals.filter((rental) => isUuid(rental.orderId) && isUuid(rental.listingId));
  if (valid.length === 0) return;
  await lockListingsForRentals(tx, [...new Set(valid.map((rental) => rental.listingId))]);
  for (const { orderId, listingId, change } of valid) {
    const rotation = await recordRental(tx, listingId, orderId, change);
    if (rotation && !rotation.before && rotation.after) {
      const row = (await findListing(tx, listingId))!;
      await events.publish(tx, 'listing.rotation_required', { ...listingSnapshot(row, null, null), order_id: orderId });
    }
  }
}
