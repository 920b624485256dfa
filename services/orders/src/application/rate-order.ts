import type { RateOrderBody, z } from '@market/contracts';
import type { Identity } from '@market/shared/auth';
import { v7 as uuidv7 } from 'uuid';
import { bothRated, directionOf, ratingRefusal, windowClosesAt } from '../domain/ratings';
import { insertRating, ratingsOf } from '../persistence/rating-repository';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { publishAndAnnounce } from './publish-ratings';
import { toRatingView } from './rating-view';

/**
 * A party rates the other party of a completed order, once (ADR 0066). The order row is locked, so
 * two ratings of one order (the same party twice, or both parties at once) are decided one after the
 * other: a repeat finds the first and is refused, and the second party's rating publishes both.
 */
export async function rateOrder(deps: OrdersDeps, identity: Identity, id: string, body: z.infer<typeof RateOrderBody>) {
  const settings = await deps.settings.current(deps.db);
  return deps.db.transaction(async (tx) => {
    const { order, role, userId } = await partyOrder(tx, id, identity, { lock: true });
    const now = new Date();
    const existing = await ratingsOf(tx, order.id);
    const direction = directionOf(role);
    const closesAt = windowClosesAt(order, existing, settings['rating.window_days'], deps.ratingDayMs);
    const refusal = ratingRefusal(order, direction, body.tags ?? [], existing, closesAt, now);
    if (refusal) throw refusal;
    const rating = await insertRating(tx, {
      id: uuidv7(),
      order_id: order.id,
      listing_id: order.listing_id,
      direction,
      rater_id: userId,
      ratee_id: role === 'renter' ? order.owner_id : order.renter_id,
      stars: body.stars,
      tags: body.tags ?? [],
      comment: body.comment ?? null,
      window_closes_at: closesAt,
      created_at: now,
    });
    if (!bothRated(existing, direction)) return toRatingView(rating, { kind: 'party', userId });
    const published = await publishAndAnnounce(deps, tx, [...existing.map((r) => r.id), rating.id], now);
    return toRatingView(published.find((r) => r.id === rating.id) ?? rating, { kind: 'party', userId });
  });
}
