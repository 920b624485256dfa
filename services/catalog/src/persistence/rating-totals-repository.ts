import type { Tx } from '@market/shared/db';

export interface CountedRating {
  rating_id: string;
  listing_id: string;
  owner_id: string;
  stars: number;
}

/**
 * Adds one published rating to its listing's and its owner's totals, unless it was counted already
 * (answers whether it counted now). The totals are changed by increments under row locks, so
 * ratings of one listing handled at once all count.
 */
export async function countRating(tx: Tx, rating: CountedRating, at: Date): Promise<boolean> {
  const inserted: unknown[] = await tx.query(
    `INSERT INTO counted_ratings (rating_id, listing_id, owner_id, stars, counted_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (rating_id) DO NOTHING RETURNING rating_id`,
    [rating.rating_id, rating.listing_id, rating.owner_id, rating.stars, at],
  );
  if (inserted.length === 0) return false;
  await tx.query(`UPDATE listings SET rating_count = rating_count + 1, rating_sum = rating_sum + $2 WHERE id = $1`, [rating.listing_id, rating.stars]);
  await tx.query(
    `INSERT INTO owner_rating_totals (owner_id, rating_count, rating_sum) VALUES ($1, 1, $2)
     ON CONFLICT (owner_id) DO UPDATE SET rating_count = owner_rating_totals.rating_count + 1, rating_sum = owner_rating_totals.rating_sum + $2`,
    [rating.owner_id, rating.stars],
  );
  return true;
}
