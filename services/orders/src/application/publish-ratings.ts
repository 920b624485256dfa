import type { Tx } from '@market/shared/db';
import { claimClosedWindows, publishRatings, type PublishedRatingRow } from '../persistence/rating-repository';
import type { OrdersDeps } from './deps';

const BATCH = 100;

/** Publishes ratings not published yet, with one `order.rating_published` each in the same transaction. */
export async function publishAndAnnounce(deps: Pick<OrdersDeps, 'events'>, tx: Tx, ids: readonly string[], at: Date): Promise<PublishedRatingRow[]> {
  const rows = await publishRatings(tx, ids, at);
  for (const row of rows) {
    await deps.events.publish(tx, 'order.rating_published', {
      rating_id: row.id,
      order_id: row.order_id,
      listing_id: row.listing_id,
      owner_id: row.owner_id,
      renter_id: row.renter_id,
      direction: row.direction,
      stars: row.stars,
      published_at: at.toISOString(),
    });
  }
  return rows;
}

/**
 * Publishes every rating whose window has closed without the other party's rating (ADR 0066).
 * Visibility is the stored `published_at` alone, never a clock compared at read time, so every
 * replica answers the same; replicas running this at once claim different ratings (SKIP LOCKED).
 */
export async function publishClosedWindows(deps: Pick<OrdersDeps, 'db' | 'events'>): Promise<number> {
  let published = 0;
  for (;;) {
    const claimed = await deps.db.transaction(async (tx) => {
      const now = new Date();
      const ids = await claimClosedWindows(tx, now, BATCH);
      published += (await publishAndAnnounce(deps, tx, ids, now)).length;
      return ids.length;
    });
    if (claimed < BATCH) return published;
  }
}
