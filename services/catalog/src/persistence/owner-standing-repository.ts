import type { Tx } from '@market/shared/db';
import { LISTING_COLUMNS, type ListingRow } from './listing-repository';

/**
 * Applies a freeze (`frozen`) or an unfreeze that happened at `asOf`, unless a later one is
 * already applied; true when it was applied. The upsert locks the owner's row, so a freeze and
 * an unfreeze handled at once are applied one after the other.
 */
export async function applyOwnerStanding(tx: Tx, ownerId: string, frozen: boolean, asOf: Date): Promise<boolean> {
  const rows: unknown[] = await tx.query(
    `INSERT INTO owner_standing (owner_id, frozen, as_of) VALUES ($1, $2, $3)
     ON CONFLICT (owner_id) DO UPDATE SET frozen = EXCLUDED.frozen, as_of = EXCLUDED.as_of
       WHERE owner_standing.as_of < EXCLUDED.as_of
     RETURNING owner_id`,
    [ownerId, frozen, asOf],
  );
  return rows.length > 0;
}

export async function isOwnerFrozen(tx: Tx, ownerId: string): Promise<boolean> {
  const rows: Array<{ frozen: boolean }> = await tx.query(`SELECT frozen FROM owner_standing WHERE owner_id = $1`, [ownerId]);
  return rows[0]?.frozen ?? false;
}

/**
 * Every listing of the owner, whatever its state, locked in id order. Locking all of them (not
 * only the online ones) makes an approval that is running now finish first, so the freeze sees
 * the listing it put online; an approval that starts later waits and then sees the freeze.
 */
export async function lockListingsOfOwner(tx: Tx, ownerId: string): Promise<ListingRow[]> {
  return tx.query(`SELECT ${LISTING_COLUMNS} FROM listings WHERE owner_id = $1 ORDER BY id FOR UPDATE`, [ownerId]);
}

export async function recordFreezeHold(tx: Tx, listingId: string, ownerId: string) {
  await tx.query(`INSERT INTO frozen_owner_holds (listing_id, owner_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
    listingId,
    ownerId,
  ]);
}

/** The listings the owner's freeze took offline, locked in id order, and forgets them as held. */
export async function takeFreezeHolds(tx: Tx, ownerId: string): Promise<ListingRow[]> {
  const rows: ListingRow[] = await tx.query(
    `SELECT ${LISTING_COLUMNS} FROM listings WHERE id IN (SELECT listing_id FROM frozen_owner_holds WHERE owner_id = $1)
     ORDER BY id FOR UPDATE`,
    [ownerId],
  );
  await tx.query(`DELETE FROM frozen_owner_holds WHERE owner_id = $1`, [ownerId]);
  return rows;
}
