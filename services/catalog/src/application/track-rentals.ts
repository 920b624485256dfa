import { isUuid, type EntityManager } from '@market/shared';
import { recordRentalEnd, recordRentalStart, refreshRented } from '../persistence/rental-repository';

/** An order on the listing is active from its creation (orders decides availability; we show it). */
export async function rentalStarted(manager: EntityManager, orderId: string, listingId: string) {
  if (!isUuid(orderId) || !isUuid(listingId)) return;
  await recordRentalStart(manager, orderId, listingId, new Date());
  await refreshRented(manager, listingId);
}

/** The order was cancelled, closed or completed: the listing is free again unless another order is active. */
export async function rentalEnded(manager: EntityManager, orderId: string, listingId: string) {
  if (!isUuid(orderId) || !isUuid(listingId)) return;
  await recordRentalEnd(manager, orderId, listingId, new Date());
  await refreshRented(manager, listingId);
}
