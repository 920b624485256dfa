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
