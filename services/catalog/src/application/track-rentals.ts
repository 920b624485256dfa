import { isUuid, type Tx } from '@market/shared/db';
import { lockListingForRentals, recordRentalEnd, recordRentalStart, refreshRented } from '../persistence/rental-repository';

/**
 * Order events on one listing are handled concurrently, under READ COMMITTED. The listing row is
 * locked before anything is read or written, so a second handler waits for the first to commit
 * and then sees its rental row; otherwise an order ending while another starts could recompute
 * `rented` from a snapshot that misses the new order and leave it false during an active order.
 */
async function withListingLocked(tx: Tx, listingId: string, change: () => Promise<void>) {
  await lockListingForRentals(tx, listingId);
  await change();
  await refreshRented(tx, listingId);
}

/** An order on the listing is active from its creation (orders decides availability; we show it). */
export async function rentalStarted(tx: Tx, orderId: string, listingId: string) {
  if (!isUuid(orderId) || !isUuid(listingId)) return;
  await withListingLocked(tx, listingId, () => recordRentalStart(tx, orderId, listingId, new Date()));
}

/** The order was cancelled, closed or completed: the listing is free again unless another order is active. */
export async function rentalEnded(tx: Tx, orderId: string, listingId: string) {
  if (!isUuid(orderId) || !isUuid(listingId)) return;
  await withListingLocked(tx, listingId, () => recordRentalEnd(tx, orderId, listingId, new Date()));
}
