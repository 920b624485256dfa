import type { EntityManager, SealedColumn } from '@market/shared';

export const LISTING_CREDENTIALS_SEALED: SealedColumn = { table: 'listing_credentials', column: 'sealed', idColumn: 'listing_id' };

/** `sealed` is the SecretBox envelope of the credentials; the plaintext never reaches this table. */
export async function insertListingCredentials(manager: EntityManager, listingId: string, sealed: string) {
  await manager.query(`INSERT INTO listing_credentials (listing_id, sealed) VALUES ($1, $2)`, [listingId, sealed]);
}
