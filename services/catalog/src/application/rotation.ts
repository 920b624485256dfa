import { type Identity } from '@market/shared/auth';
import { type Tx } from '@market/shared/db';
import { findListing, updateRotation, type ListingRow } from '../persistence/listing-repository';
import { refreshAwaitingRotation } from '../persistence/rental-repository';
import type { CatalogDeps } from './deps';
import { assertNotRented, ownListing } from './listing-access';
import { toListingView } from './listing-view';

/**
 * Applies the owner's rotation setting or a password change (ADR 0066) and derives
 * `awaiting_rotation` again; answers the listing as it now stands. The caller holds the listing's lock.
 */
export async function applyRotation(tx: Tx, id: string, change: { require_rotation?: boolean; rotated_at?: Date }): Promise<ListingRow> {
  await updateRotation(tx, id, change);
  await refreshAwaitingRotation(tx, id);
  return (await findListing(tx, id))!;
}

/**
 * The owner says the account's password was changed after the last rental: the listing may be
 * rented again. Not while it is rented, since the renter still holds the account.
 */
export async function confirmRotation(deps: CatalogDeps, identity: Identity, id: string) {
  return deps.db.transaction(async (tx) => {
    const row = await ownListing(tx, id, identity, { lock: true });
    assertNotRented(row);
    return toListingView(await applyRotation(tx, row.id, { rotated_at: new Date() }));
  });
}
