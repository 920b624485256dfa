import type { EntityManager } from '@market/shared';

/** `sealed` is the SecretBox envelope of the credentials; the plaintext never reaches this table. */
export async function insertListingCredentials(manager: EntityManager, listingId: string, sealed: string) {
  await manager.query(`INSERT INTO listing_credentials (listing_id, sealed) VALUES ($1, $2)`, [listingId, sealed]);
}
