import type { Rating, z } from '@market/contracts';
import type { RatingRow } from '../persistence/rating-repository';

/** Who reads a rating: one of the order's parties, or the back office (which sees everything). */
export type RatingReader = { kind: 'party'; userId: string } | { kind: 'staff' };

/** Whether the reader sees the rating at all: its author and staff always, the other party once it is published. */
export function readableBy(row: RatingRow, reader: RatingReader): boolean {
  return reader.kind === 'staff' || row.rater_id === reader.userId || row.published_at !== null;
}

/** A hidden comment stays readable to its author (who sees it marked hidden) and to the back office. */
export function toRatingView(row: RatingRow, reader: RatingReader): z.infer<typeof Rating> {
  const hidden = row.comment_hidden_at !== null;
  const showComment = !hidden || reader.kind === 'staff' || row.rater_id === reader.userId;
  return {
    id: row.id,
    order_id: row.order_id,
    listing_id: row.listing_id,
    direction: row.direction,
    rater_id: row.rater_id,
    ratee_id: row.ratee_id,
    stars: row.stars,
    tags: row.tags,
    comment: showComment ? row.comment : null,
    comment_hidden: hidden,
    published: row.published_at !== null,
    window_closes_at: row.window_closes_at.toISOString(),
    created_at: row.created_at.toISOString(),
    published_at: row.published_at?.toISOString() ?? null,
  };
}
