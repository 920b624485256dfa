import type { Identity } from '@market/shared/auth';
import { ratingsOf } from '../persistence/rating-repository';
import { existingOrder } from './admin-read-orders';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { readableBy, toRatingView, type RatingReader } from './rating-view';

/** A party's view of the order's ratings: their own, and the other party's once published. */
export async function partyRatings(deps: OrdersDeps, identity: Identity, id: string) {
  const { order, userId } = await partyOrder(deps.db, id, identity);
  const reader: RatingReader = { kind: 'party', userId };
  const rows = await ratingsOf(deps.db, order.id);
  return { items: rows.filter((row) => readableBy(row, reader)).map((row) => toRatingView(row, reader)) };
}

/** Every rating of the order, as the back office sees them. */
export async function adminRatings(deps: OrdersDeps, id: string) {
  const order = await existingOrder(deps, id);
  return { items: (await ratingsOf(deps.db, order.id)).map((row) => toRatingView(row, { kind: 'staff' })) };
}
