import type { RatingDirection, RatingTag } from '@market/contracts';
import { updateReturning, type Queryable, type Tx } from '@market/shared/db';

export interface RatingRow {
  id: string;
  order_id: string;
  listing_id: string;
  direction: RatingDirection;
  rater_id: string;
  ratee_id: string;
  stars: number;
  tags: RatingTag[];
  comment: string | null;
  comment_hidden_by: string | null;
  comment_hidden_at: Date | null;
  comment_hidden_reason: string | null;
  window_closes_at: Date;
  published_at: Date | null;
  created_at: Date;
}

/** A rating with the parties of its order, for the event that publishes it. */
export interface PublishedRatingRow extends RatingRow {
  owner_id: string;
  renter_id: string;
}

const COLUMNS = `id, order_id, listing_id, direction, rater_id, ratee_id, stars, tags, comment, comment_hidden_by, comment_hidden_at,
  comment_hidden_reason, window_closes_at, published_at, created_at`;

export type NewRating = Pick<
  RatingRow,
  'id' | 'order_id' | 'listing_id' | 'direction' | 'rater_id' | 'ratee_id' | 'stars' | 'tags' | 'comment' | 'window_closes_at' | 'created_at'
>;

export async function insertRating(tx: Tx, rating: NewRating): Promise<RatingRow> {
  const rows: RatingRow[] = await tx.query(
    `INSERT INTO ratings (id, order_id, listing_id, direction, rater_id, ratee_id, stars, tags, comment, window_closes_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [
      rating.id,
      rating.order_id,
      rating.listing_id,
      rating.direction,
      rating.rater_id,
      rating.ratee_id,
      rating.stars,
      rating.tags,
      rating.comment,
      rating.window_closes_at,
      rating.created_at,
    ],
  );
  return rows[0]!;
}

/** The ratings of one order, oldest first (at most one per direction). */
export async function ratingsOf(db: Queryable, orderId: string): Promise<RatingRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM ratings WHERE order_id = $1 ORDER BY created_at, id`, [orderId]);
}

/** One rating of the order, locked for a change. */
export async function lockRating(tx: Tx, orderId: string, id: string): Promise<RatingRow | null> {
  const rows: RatingRow[] = await tx.query(`SELECT ${COLUMNS} FROM ratings WHERE id = $1 AND order_id = $2 FOR UPDATE`, [id, orderId]);
  return rows[0] ?? null;
}

/**
 * Marks ratings published, each once: a rating another transaction published meanwhile (the second
 * party's rating racing the publisher at the window's close) is not returned again, so its event is
 * written once.
 */
export async function publishRatings(tx: Tx, ids: readonly string[], at: Date): Promise<PublishedRatingRow[]> {
  if (ids.length === 0) return [];
  return updateReturning<PublishedRatingRow>(
    tx,
    `UPDATE ratings r SET published_at = $2 FROM orders o
      WHERE r.id = ANY($1::uuid[]) AND r.published_at IS NULL AND o.id = r.order_id
      RETURNING ${COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}, o.owner_id, o.renter_id`,
    [ids, at],
  );
}

/** Unpublished ratings whose window has closed, claimed so replicas publishing at once take different ones. */
export async function claimClosedWindows(tx: Tx, now: Date, limit: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await tx.query(
    `SELECT id FROM ratings WHERE published_at IS NULL AND window_closes_at <= $1
      ORDER BY window_closes_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}

export async function hideComment(tx: Tx, id: string, adminId: string, reason: string, at: Date): Promise<RatingRow> {
  const rows = await updateReturning<RatingRow>(
    tx,
    `UPDATE ratings SET comment_hidden_by = $2, comment_hidden_at = $3, comment_hidden_reason = $4 WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, adminId, at, reason],
  );
  return rows[0]!;
}

export interface RenterRecordRow {
  renter_id: string;
  rating_sum: number;
  rating_count: number;
  completed_orders: number;
}

/** For each renter: the published stars owners gave them, and how many orders they completed. */
export async function renterRecords(db: Queryable, renterIds: readonly string[]): Promise<RenterRecordRow[]> {
  if (renterIds.length === 0) return [];
  return db.query(
    `SELECT u.renter_id,
            COALESCE((SELECT sum(stars) FROM ratings r WHERE r.ratee_id = u.renter_id AND r.direction = 'owner_to_renter' AND r.published_at IS NOT NULL), 0)::int AS rating_sum,
            (SELECT count(*) FROM ratings r WHERE r.ratee_id = u.renter_id AND r.direction = 'owner_to_renter' AND r.published_at IS NOT NULL)::int AS rating_count,
            (SELECT count(*) FROM orders o WHERE o.renter_id = u.renter_id AND o.status = 'completed')::int AS completed_orders
       FROM unnest($1::uuid[]) AS u (renter_id)`,
    [renterIds],
  );
}
