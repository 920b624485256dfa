import type { SealedColumn } from '@market/shared/crypto';
import type { Tx, Queryable } from '@market/shared/db';

export const LISTING_CREDENTIALS_SEALED: SealedColumn = { table: 'listing_credentials', column: 'sealed', idColumn: 'listing_id' };

/** `sealed` is the SecretBox envelope of the credentials; the plaintext never reaches this table. */
export async function insertListingCredentials(tx: Tx, listingId: string, sealed: string) {
  await tx.query(`INSERT INTO listing_credentials (listing_id, sealed) VALUES ($1, $2)`, [listingId, sealed]);
}

/** Replaces a listing's credentials (an owner's PUT), or stores its first ones. */
export async function upsertListingCredentials(tx: Tx, listingId: string, sealed: string) {
  await tx.query(
    `INSERT INTO listing_credentials (listing_id, sealed) VALUES ($1, $2)
     ON CONFLICT (listing_id) DO UPDATE SET sealed = EXCLUDED.sealed, created_at = now()`,
    [listingId, sealed],
  );
}

export async function findListingCredentials(db: Queryable, listingId: string): Promise<string | null> {
  const rows: Array<{ sealed: string }> = await db.query(`SELECT sealed FROM listing_credentials WHERE listing_id = $1`, [listingId]);
  return rows[0]?.sealed ?? null;
}

/**
 * A listing's sealed credentials, null when it stores none, in one statement with the listing's
 * existence: undefined when there is no such listing.
 */
export async function findCredentialsOfListing(db: Queryable, listingId: string): Promise<{ listingId: string; sealed: string | null } | undefined> {
  const rows: Array<{ id: string; sealed: string | null }> = await db.query(
    `SELECT l.id, c.sealed FROM listings l LEFT JOIN listing_credentials c ON c.listing_id = l.id WHERE l.id = $1`,
    [listingId],
  );
  return rows[0] && { listingId: rows[0].id, sealed: rows[0].sealed };
}
