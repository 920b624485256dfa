import type { Listing, z } from '@market/contracts';

export type ListingState = Pick<z.infer<typeof Listing>, 'status' | 'review_status'>;
type Status = ListingState['status'];
type Review = ListingState['review_status'];

/**
 * What moves a listing. `edit` is an owner PUT that changes the content; a PUT that changes
 * nothing moves nothing but is still refused where `edit` has no row.
 */
export const LISTING_TRIGGERS = ['submit', 'approve', 'reject', 'offline', 'mark_abnormal', 'edit', 'delete'] as const;

/**
 * Moves caused by the owner's standing (`user.frozen` / `user.unfrozen` from identity), not by a
 * request on the listing. Unfreezing brings back exactly the listings the freeze took offline
 * (ADR 0008): the freeze judged the person, not the content, which review had approved.
 */
export const OWNER_STANDING_TRIGGERS = ['owner_frozen', 'owner_unfrozen'] as const;

export type ListingTrigger = (typeof LISTING_TRIGGERS)[number] | (typeof OWNER_STANDING_TRIGGERS)[number];

export const OWNER_TRIGGERS: ReadonlySet<ListingTrigger> = new Set(['submit', 'edit', 'delete']);

export interface ListingTransition {
  /** `review_status` omitted: any */
  from: { status: Status; review_status?: Review };
  trigger: ListingTrigger;
  /** `review_status` omitted: unchanged */
  to: { status: Status; review_status?: Review };
}

/**
 * CONTRACT §4, with the gaps it leaves decided:
 * - editing a listing under review or taken offline also sends it back to draft / none, so an
 *   admin never approves content they did not see and an owner has a way back after an offline;
 * - an abnormal listing is frozen for the back office: the owner may delete it but not edit it;
 * - mark-abnormal of an abnormal listing is refused, so two racing admins cannot both "win".
 * Every move not listed here is 409 INVALID_STATE.
 */
export const LISTING_TRANSITIONS: readonly ListingTransition[] = [
  { from: { status: 'draft', review_status: 'none' }, trigger: 'submit', to: { status: 'draft', review_status: 'pending' } },
  { from: { status: 'draft', review_status: 'rejected' }, trigger: 'submit', to: { status: 'draft', review_status: 'pending' } },
  { from: { status: 'draft', review_status: 'pending' }, trigger: 'approve', to: { status: 'online', review_status: 'approved' } },
  { from: { status: 'draft', review_status: 'pending' }, trigger: 'reject', to: { status: 'draft', review_status: 'rejected' } },
  { from: { status: 'online' }, trigger: 'offline', to: { status: 'offline' } },
  { from: { status: 'draft' }, trigger: 'mark_abnormal', to: { status: 'abnormal' } },
  { from: { status: 'online' }, trigger: 'mark_abnormal', to: { status: 'abnormal' } },
  { from: { status: 'offline' }, trigger: 'mark_abnormal', to: { status: 'abnormal' } },
  { from: { status: 'draft', review_status: 'none' }, trigger: 'edit', to: { status: 'draft' } },
  { from: { status: 'draft', review_status: 'rejected' }, trigger: 'edit', to: { status: 'draft' } },
  { from: { status: 'draft', review_status: 'pending' }, trigger: 'edit', to: { status: 'draft', review_status: 'none' } },
  { from: { status: 'online' }, trigger: 'edit', to: { status: 'draft', review_status: 'none' } },
  { from: { status: 'offline' }, trigger: 'edit', to: { status: 'draft', review_status: 'none' } },
  { from: { status: 'draft' }, trigger: 'delete', to: { status: 'deleted' } },
  { from: { status: 'online' }, trigger: 'delete', to: { status: 'deleted' } },
  { from: { status: 'offline' }, trigger: 'delete', to: { status: 'deleted' } },
  { from: { status: 'abnormal' }, trigger: 'delete', to: { status: 'deleted' } },
  { from: { status: 'online' }, trigger: 'owner_frozen', to: { status: 'offline' } },
  { from: { status: 'offline', review_status: 'approved' }, trigger: 'owner_unfrozen', to: { status: 'online' } },
];

/** Where `trigger` takes a listing in `state`, or null when the table has no such move. */
export function nextListingState(state: ListingState, trigger: ListingTrigger): ListingState | null {
  const row = LISTING_TRANSITIONS.find(
    (t) =>
      t.trigger === trigger &&
      t.from.status === state.status &&
      (t.from.review_status === undefined || t.from.review_status === state.review_status),
  );
  if (!row) return null;
  return { status: row.to.status, review_status: row.to.review_status ?? state.review_status };
}

/** Where a listing starts: created by its owner, or delivered by an open upload (already awaiting review). */
export const CREATED_BY_OWNER: ListingState = { status: 'draft', review_status: 'none' };
export const CREATED_BY_OPEN_UPLOAD: ListingState = { status: 'draft', review_status: 'pending' };
export const INITIAL_LISTING_STATES: readonly ListingState[] = [CREATED_BY_OWNER, CREATED_BY_OPEN_UPLOAD];

/** Deleted listings exist only for the back office; to their owner they are gone. */
export function visibleToOwner(state: ListingState): boolean {
  return state.status !== 'deleted';
}

/** Online is the only state renters see and order; a frozen owner has no listing in it (ADR 0008). */
export function isPublic(state: Pick<ListingState, 'status'>): boolean {
  return state.status === 'online';
}

/** A move that puts a listing in renters' reach; refused while its owner is frozen (409 OWNER_FROZEN). */
export function reachesRenters(trigger: ListingTrigger): boolean {
  return LISTING_TRANSITIONS.some((t) => t.trigger === trigger && isPublic(t.to));
}
