import type { Tx } from '@market/shared/db';

/** Serialises rental bookkeeping per listing; `rented` is not a key, so FK checks are not blocked. */
export async function lockListingForRentals(tx: Tx, listingId: string) {
  await tx.query(`SELECT 1 FROM listings WHERE id = $1 FOR NO KEY UPDATE`, [listingId]);
}

/** An order began on a listing; an end that arrived first (redelivery, retry) wins. */
export async function recordRentalStart(tx: Tx, orderId: string, listingId: string, at: Date) {
  await tx.query(
    `INSERT INTO listing_rentals (order_id, listing_id, started_at) VALUES ($1, $2, $3)
     ON CONFLICT (order_id) DO UPDATE SET started_at = EXCLUDED.started_at`,
    [orderId, listingId, at],
  );
}

/**
 * An order on the listing ended at `orderEndedAt` (orders' time of the move); `handedOver` when the
 * end itself proves a handover (a completed order went through it).
 */
export async function recordRentalEnd(tx: Tx, orderId: string, listingId: string, at: Date, orderEndedAt: Date, handedOver: boolean) {
  await tx.query(
    `INSERT INTO listing_rentals (order_id, listing_id, ended_at, order_ended_at, handed_over) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (order_id) DO UPDATE SET ended_at = COALESCE(listing_rentals.ended_at, EXCLUDED.ended_at),
       order_ended_at = COALESCE(listing_rentals.order_ended_at, EXCLUDED.order_ended_at),
       handed_over = listing_rentals.handed_over OR EXCLUDED.handed_over`,
    [orderId, listingId, at, orderEndedAt, handedOver],
  );
}

/** The order handed the account over; its end may have arrived first. */
export async function recordHandover(tx: Tx, orderId: string, listingId: string) {
  await tx.query(
    `INSERT INTO listing_rentals (order_id, listing_id, handed_over) VALUES ($1, $2, true)
     ON CONFLICT (order_id) DO UPDATE SET handed_over = true`,
    [orderId, listingId],
  );
}

/** Whether some rental that handed the account over ended after the owner last confirmed a new password. */
const ENDED_HANDOVER_SINCE_ROTATION = `l.require_rotation AND EXISTS (
  SELECT 1 FROM listing_rentals r
   WHERE r.listing_id = $1 AND r.handed_over AND r.order_ended_at IS NOT NULL
     AND r.order_ended_at > COALESCE(l.rotation_confirmed_at, '-infinity'::timestamptz)
)`;

/**
 * `awaiting_rotation` is derived: the listing requires rotation and some rental that handed the
 * account over ended after the owner last confirmed a new password. Answers the value before and after.
 */
export async function refreshAwaitingRotation(tx: Tx, listingId: string): Promise<{ before: boolean; after: boolean } | null> {
  const rows: Array<{ before: boolean; after: boolean }> = await tx.query(
    `WITH before AS (SELECT awaiting_rotation FROM listings WHERE id = $1),
     changed AS (
       UPDATE listings l SET awaiting_rotation = ${ENDED_HANDOVER_SINCE_ROTATION} WHERE l.id = $1 RETURNING l.awaiting_rotation
     ) SELECT before.awaiting_rotation AS before, changed.awaiting_rotation AS after FROM before, changed`,
    [listingId],
  );
  return rows[0] ?? null;
}

/**
 * Both of a listing's derived rental flags in one statement and one new row version (ADR 0077):
 * `rented`, true while some order on the listing has started and not ended, and `awaiting_rotation`
 * as above, whose value before and after it answers.
 */
export async function refreshRentalFlags(tx: Tx, listingId: string): Promise<{ before: boolean; after: boolean } | null> {
  const rows: Array<{ before: boolean; after: boolean }> = await tx.query(
    `WITH before AS (SELECT awaiting_rotation FROM listings WHERE id = $1),
     changed AS (
       UPDATE listings l SET
         rented = EXISTS (SELECT 1 FROM listing_rentals WHERE listing_id = $1 AND started_at IS NOT NULL AND ended_at IS NULL),
         awaiting_rotation = ${ENDED_HANDOVER_SINCE_ROTATION}
       WHERE l.id = $1 RETURNING l.awaiting_rotation
     ) SELECT before.awaiting_rotation AS before, changed.awaiting_rotation AS after FROM before, changed`,
    [listingId],
  );
  return rows[0] ?? null;
}
