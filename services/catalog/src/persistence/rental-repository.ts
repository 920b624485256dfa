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

export async function recordRentalEnd(tx: Tx, orderId: string, listingId: string, at: Date) {
  await tx.query(
    `INSERT INTO listing_rentals (order_id, listing_id, ended_at) VALUES ($1, $2, $3)
     ON CONFLICT (order_id) DO UPDATE SET ended_at = COALESCE(listing_rentals.ended_at, EXCLUDED.ended_at)`,
    [orderId, listingId, at],
  );
}

/** `rented` is derived: true while some order on the listing has started and not ended. */
export async function refreshRented(tx: Tx, listingId: string): Promise<boolean | null> {
  const rows: Array<{ rented: boolean }> = await tx.query(
    `WITH changed AS (
       UPDATE listings SET rented = EXISTS (
         SELECT 1 FROM listing_rentals WHERE listing_id = $1 AND started_at IS NOT NULL AND ended_at IS NULL
       ) WHERE id = $1 RETURNING rented
     ) SELECT rented FROM changed`,
    [listingId],
  );
  return rows[0]?.rented ?? null;
}
