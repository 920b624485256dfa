import type { Listing, z } from '@market/contracts';

/** Where a listing is; `plan-listing-move.ts` says which moves take it where. */
export type ListingState = Pick<z.infer<typeof Listing>, 'status' | 'review_status'>;

/** Where a listing starts: created by its owner, to be submitted for review when ready. */
export const CREATED_BY_OWNER: ListingState = { status: 'draft', review_status: 'none' };

/** Deleted listings exist only for the back office; to their owner they are gone. */
export function visibleToOwner(state: ListingState): boolean {
  return state.status !== 'deleted';
}

/** Online is the only state renters see and order; a frozen owner has no listing in it (ADR 0008). */
export function isPublic(state: Pick<ListingState, 'status'>): boolean {
  return state.status === 'online';
}
