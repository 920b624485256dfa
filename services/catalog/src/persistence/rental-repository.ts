import type { Tx } from '@market/shared/db';

/**
 * Serialises rental bookkeeping per listing; `rented` is not a key, so FK checks are not blocked.
 * The rows are locked in id order: Postgres locks a `FOR … UPDATE` query's rows after sorting them.
 */
export async function lockListingsForRentals(tx: Tx, listingIds: readonly string[]) {
  await tx.query(`SELECT 1 FROM listings WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, [listingIds]);
}

/** What an order event records of its rental: an upsert of its `listing_rentals` row, by order ($2) on the listing ($1). */
export interface RentalChange {
  upsert: string;
  params: unknown[];
}

/** An order began on a listing; an end that arrived first (redelivery, retry) wins. */
export function rentalStart(at: Date): RentalChange {
  return {
    upsert: `INSERT INTO listing_rentals (order_id, listing_id, started_at) VALUES ($2, $1, $3)
     ON CONFLICT (order_id) DO UPDATE SET started_at = EXCLUDED.started_at`,
    params: [at],
  };
}

/**
 * An order on the listing ended at `orderEndedAt` (orders' time of the move); `handedOver` when the
 * end itself proves a handover (a completed order went through it).
 */
export function rentalEnd(at: Date, orderEndedAt: Date, handedOver: boolean): RentalChange {
  return {
    upsert: `INSERT INTO listing_rentals (order_id, listing_id, ended_at, order_ended_at, handed_over) VALUES ($2, $1, $3, $4, $5)
     ON CONFLICT (order_id) DO UPDATE SET ended_at = COALESCE(listing_rentals.ended_at, EXCLUDED.ended_at),
       order_ended_at = COALESCE(listing_rentals.order_ended_at, EXCLUDED.order_ended_at),
       handed_over = listing_rentals.handed_over OR EXCLUDED.handed_over`,
    params: [at, orderEndedAt, handedOver],
  };
}

/** The order handed the account over; its end may have arrived first. */
export function rentalHandover(): RentalChange {
  return {
    upsert: `INSERT INTO listing_rentals (order_id, listing_id, handed_over) VALUES ($2, $1, true)
     ON CONFLICT (order_id) DO UPDATE SET handed_over = true`,
    params: [],
  };
}

/** Whether some rental of `rentals` that handed the account over ended after the owner last confirmed a new password. */
const endedHandoverSinceRotation = (rentals: string) => `l.require_rotation AND EXISTS (
  SELECT 1 FROM ${rentals} r
   WHERE r.handed_over AND r.order_ended_at IS NOT NULL
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
       UPDATE listings l SET awaiting_rotation = ${endedHandoverSinceRotation('(SELECT handed_over, order_ended_at FROM listing_rentals WHERE listing_id = $1)')}
       WHERE l.id = $1 RETURNING l.awaiting_rotation
     ) SELECT before.awaiting_rotation AS before, changed.awaiting_rotation AS after FROM before, changed`,
    [listingId],
  );
  return rows[0] ?? null;
}

/**
 * Records an order's rental change and refreshes both of the listing's derived flags, in one
 * statement and one new row version (ADR 0077, 0078): `rented`, true while some order on the
 * listing has started and not ended, and `awaiting_rotation` as above, whose value before and after
 * it answers. The parts of one statement share its snapshot, so the flags read the order's rental as
 * the upsert returned it and every other rental of the listing from the table; the caller holds the
 * listing's lock from an earlier statement, so that snapshot has every other handler's rental.
 */
export async function recordRental(tx: Tx, listingId: string, orderId: string, change: RentalChange): Promise<{ before: boolean; after: boolean } | null> {
  const rows: Array<{ before: boolean; after: boolean }> = await tx.query(
    `WITH rental AS (${change.upsert} RETURNING started_at, ended_at, handed_over, order_ended_at),
     rentals AS (
       SELECT started_at, ended_at, handed_over, order_ended_at FROM listing_rentals WHERE listing_id = $1 AND order_id <> $2
       UNION ALL SELECT started_at, ended_at, handed_over, order_ended_at FROM rental
     ),
     before AS (SELECT awaiting_rotation FROM listings WHERE id = $1),
     changed AS (
       UPDATE listings l SET
         rented = EXISTS (SELECT 1 FROM rentals WHERE started_at IS NOT NULL AND ended_at IS NULL),
         awaiting_rotation = ${endedHandoverSinceRotation('rentals')}
       WHERE l.id = $1 RETURNING l.awaiting_rotation
     ) SELECT before.awaiting_rotation AS before, changed.awaiting_rotation AS after FROM before, changed`,
    [listingId, orderId, ...change.params],
  );
  return rows[0] ?? null;
}
