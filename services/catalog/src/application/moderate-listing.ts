import { type AdminIdentity } from '@market/shared/auth';
import { recordAudit } from '@market/shared/events';
import { OwnerFrozen } from '../domain/errors';
import { reachesRenters, type ListingTrigger } from '../domain/listing-state';
import { toListingView } from './listing-view';
import { isOwnerFrozen } from '../persistence/owner-standing-repository';
import { anyListing } from './listing-access';
import { assertMove, moveListing } from './listing-moves';
import type { CatalogDeps } from './deps';

export type ModerationTrigger = Extract<ListingTrigger, 'approve' | 'reject' | 'offline' | 'mark_abnormal'>;

/**
 * A back-office move (approve, reject, offline, mark abnormal), audited in the same transaction.
 * Two admins acting on one listing at once: the second waits for the row lock, finds the new
 * state, and gets 409. A move that would put a frozen owner's listing in renters' reach is
 * refused; the owner's standing is read after the listing lock, which a freeze being applied
 * also takes, so an approval and a freeze racing each other cannot leave the listing online.
 */
export async function moderateListing(
  deps: CatalogDeps,
  identity: AdminIdentity,
  id: string,
  trigger: ModerationTrigger,
  reason: string | null,
) {
  return deps.db.transaction(async (tx) => {
    const row = await anyListing(tx, id, { lock: true });
    assertMove(row, trigger);
    if (reachesRenters(trigger) && (await isOwnerFrozen(tx, row.owner_id))) {
      throw new OwnerFrozen();
    }
    const moved = await moveListing(tx, deps.events, row, {
      trigger,
      reason,
      actorId: identity.sub,
      changes: { reject_reason: trigger === 'reject' ? reason : trigger === 'approve' ? null : undefined },
    });
    await recordAudit(deps.events, tx, identity, {
      action: `listing.${trigger}`,
      biz_type: 'listing',
      biz_id: row.id,
      detail: {
        from: { status: row.status, review_status: row.review_status },
        to: { status: moved.status, review_status: moved.review_status },
        ...(reason ? { reason } : {}),
      },
    });
    return toListingView(moved);
  });
}
