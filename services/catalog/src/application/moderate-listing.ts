import { type AdminIdentity } from '@market/shared/auth';
import { type ListingMoveName } from '../domain/plan-listing-move';
import { toListingView } from './listing-view';
import { anyListing } from './listing-access';
import { moveListing } from './listing-moves';
import type { CatalogDeps } from './deps';

export type ModerationMove = Extract<ListingMoveName, 'approve' | 'reject' | 'offline' | 'mark_abnormal'>;

/**
 * A back-office move (approve, reject, offline, mark abnormal), audited in the same transaction.
 * Two admins acting on one listing at once: the second waits for the row lock, finds the new
 * state, and gets 409. A move that would put a frozen owner's listing in renters' reach is refused.
 */
export async function moderateListing(deps: CatalogDeps, identity: AdminIdentity, id: string, move: ModerationMove, reason: string | null) {
  return deps.db.transaction(async (tx) => {
    const row = await anyListing(tx, id, { lock: true });
    const moved = await moveListing(tx, deps.events, row, { name: move, reason }, { actor: 'admin', actorId: identity.sub, identity });
    return toListingView(moved);
  });
}
