import type { EventData } from '@market/contracts';
import { isUuid, type Tx } from '@market/shared/db';
import { countRating } from '../persistence/rating-totals-repository';

/**
 * A rating orders published: a renter's rating of the owner counts for the listing and its owner
 * (ADR 0066); an owner's rating of a renter is orders' own business and changes nothing here.
 */
export async function ratingPublished(tx: Tx, data: EventData<'order.rating_published'>) {
  if (data.direction !== 'renter_to_owner' || !isUuid(data.listing_id) || !isUuid(data.owner_id)) return;
  await countRating(tx, { rating_id: data.rating_id, listing_id: data.listing_id, owner_id: data.owner_id, stars: data.stars }, new Date());
}
