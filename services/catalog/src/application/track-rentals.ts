import { isUuid, type Tx } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import { findListing } from '../persistence/listing-repository';
import { lockListingForRentals, recordRental, rentalEnd, rentalHandover, rentalStart, type RentalChange } from '../persistence/rental-repository';
import { listingSnapshot } from './listing-moves';

/**
 * Order events on one listing are handled concurrently, under READ COMMITTED. The listing row is
 * locked before anything is read or written, so a second handler waits for the first to commit
 * and then sees its rental row; otherwise an order ending while another starts could recompute
 * `rented` from a snapshot that misses the new order and leave it false during an active order.
 * `awaiting_rotation` is derived the same way, from whatever of an order's handover and end has
 * arrived, in either order; when it turns on, the owner is told to change the password (ADR 0066).
 */
async function withListingLocked(tx: Tx, events: EventWriter, orderId: string, listingId: string, change: RentalChange) {
  await lockListingForRentals(tx, listingId);
  const rotation = await recordRental(tx, listingId, orderId, change);
  if (rotation && !rotation.before && rotation.after) {
    const row = (await findListing(tx, listingId))!;
    await events.publish(tx, 'listing.rotation_required', { ...listingSnapshot(row, null, null), order_id: orderId });
  }
}

/** An order on the listing is active from its creation (orders decides availability; we show it). */
export async function rentalStarted(tx: Tx, events: EventWriter, orderId: string, listingId: string) {
  if (!isUuid(orderId) || !isUuid(listingId)) return;
  await withListingLocked(tx, events, orderId, listingId, rentalStart(new Date()));
}

/** The order handed the account over (its end may have been handled already). */
export async function rentalHandedOver(tx: Tx, events: EventWriter, orderId: string, listingId: string) {
  if (!isUuid(orderId) || !isUuid(listingId)) return;
  await withListingLocked(tx, events, orderId, listingId, rentalHandover());
}

/**
 * The order was cancelled, closed or completed (at `endedAt`, orders' time): the listing is free
 * again unless another order is active. A completed order always went through a handover.
 */
export async function rentalEnded(tx: Tx, events: EventWriter, orderId: string, listingId: string, endedAt: string, completed: boolean) {
  if (!isUuid(orderId) || !isUuid(listingId)) return;
  await withListingLocked(tx, events, orderId, listingId, rentalEnd(new Date(), new Date(endedAt), completed));
}
