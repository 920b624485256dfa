import type { Identity } from '@market/shared/auth';
import { toListingView } from './listing-view';
import { ownListing } from './listing-access';
import { moveListing } from './listing-moves';
import type { CatalogDeps } from './deps';

/** The owner takes a listing down for good (not while it is rented); only the back office still sees it. */
export async function deleteListing(deps: CatalogDeps, identity: Identity, id: string) {
  return deps.db.transaction(async (tx) => {
    const row = await ownListing(tx, id, identity, { lock: true });
    const moved = await moveListing(tx, deps.events, row, { name: 'delete' }, { actor: 'owner', actorId: row.owner_id });
    return toListingView(moved);
  });
}
