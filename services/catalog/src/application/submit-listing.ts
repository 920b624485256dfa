import type { Identity } from '@market/shared/auth';
import { toListingView } from './listing-view';
import { ownListing } from './listing-access';
import { moveListing } from './listing-moves';
import type { CatalogDeps } from './deps';

/** draft / none or rejected → draft / pending; an earlier reject reason no longer applies. */
export async function submitListing(deps: CatalogDeps, identity: Identity, id: string) {
  return deps.db.transaction(async (tx) => {
    const row = await ownListing(tx, id, identity, { lock: true });
    const moved = await moveListing(tx, deps.events, row, { name: 'submit' }, { actor: 'owner', actorId: row.owner_id });
    return toListingView(moved);
  });
}
