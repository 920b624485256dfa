import type { EventType } from '@market/contracts';
import { lookUpCell, type Planned } from '@market/shared/planning';
import { ListingMoveForbidden, ListingMoveRefused, ListingRented, OwnerFrozen } from './errors';
import { isPublic, type ListingState } from './listing-state';

type Status = ListingState['status'];
type Review = ListingState['review_status'];

/**
 * What moves a listing. `edit` is an owner PUT that changes the content (a PUT that changes
 * nothing moves nothing, but is still refused where `edit` is). `owner_frozen` / `owner_unfrozen`
 * come from identity's events about the owner, not from a request on the listing: unfreezing
 * brings back exactly the listings the freeze took offline (ADR 0008), since the freeze judged the
 * person, not the content review had approved.
 */
export const LISTING_MOVES = ['submit', 'approve', 'reject', 'offline', 'mark_abnormal', 'edit', 'delete', 'owner_frozen', 'owner_unfrozen'] as const;
export type ListingMoveName = (typeof LISTING_MOVES)[number];

/** Who moves a listing: its owner, the back office, or the system acting on the owner's standing. */
export const LISTING_ACTORS = ['owner', 'admin', 'system'] as const;
export type ListingActor = (typeof LISTING_ACTORS)[number];

export interface ListingMove {
  name: ListingMoveName;
  /** why: a reject, offline or mark-abnormal reason, the owner's standing, an open upload */
  reason?: string | null;
}

/** What the plan needs to know of a listing (read under its lock). */
export interface ListingFacts extends ListingState {
  /** an order holds it */
  rented: boolean;
  /** its owner is frozen (identity's `user.frozen`, as catalog last applied it) */
  ownerFrozen: boolean;
}

type ListingEventType = Extract<EventType, `listing.${string}`>;

/** What a move does wherever it is allowed, beyond the state it leads to. */
interface MoveEffects {
  event: ListingEventType;
  /** the reason stays on the row for the back office: why it is offline or abnormal */
  keepsReason: boolean;
  /** what becomes of the reject reason the owner sees */
  rejectReason: 'set' | 'clear' | 'keep';
  /** refused while an order holds the listing, whose renter must not see it change (docs/rules.md §4) */
  refusedWhileRented: boolean;
  /** on the audit record */
  audited: boolean;
  /** remembered as taken offline by the freeze, so that the unfreeze brings back exactly these */
  heldByFreeze: boolean;
}

const EFFECTS: Readonly<Record<ListingMoveName, MoveEffects>> = {
  submit: { event: 'listing.submitted', keepsReason: false, rejectReason: 'clear', refusedWhileRented: false, audited: false, heldByFreeze: false },
  approve: { event: 'listing.approved', keepsReason: false, rejectReason: 'clear', refusedWhileRented: false, audited: true, heldByFreeze: false },
  reject: { event: 'listing.rejected', keepsReason: false, rejectReason: 'set', refusedWhileRented: false, audited: true, heldByFreeze: false },
  offline: { event: 'listing.offlined', keepsReason: true, rejectReason: 'keep', refusedWhileRented: false, audited: true, heldByFreeze: false },
  mark_abnormal: { event: 'listing.marked_abnormal', keepsReason: true, rejectReason: 'keep', refusedWhileRented: false, audited: true, heldByFreeze: false },
  edit: { event: 'listing.updated', keepsReason: false, rejectReason: 'keep', refusedWhileRented: true, audited: false, heldByFreeze: false },
  delete: { event: 'listing.deleted', keepsReason: false, rejectReason: 'keep', refusedWhileRented: true, audited: false, heldByFreeze: false },
  owner_frozen: { event: 'listing.offlined', keepsReason: true, rejectReason: 'keep', refusedWhileRented: false, audited: false, heldByFreeze: true },
  owner_unfrozen: { event: 'listing.restored', keepsReason: false, rejectReason: 'keep', refusedWhileRented: false, audited: false, heldByFreeze: false },
};

export interface ListingCell {
  /** `review_status` omitted: any */
  from: { status: Status; review_status?: Review };
  move: ListingMoveName;
  actor: ListingActor;
  /** `review_status` omitted: unchanged */
  to: { status: Status; review_status?: Review };
}

/**
 * Every allowed (state, move, actor) cell: docs/rules.md §4, with the gaps it leaves decided (ADR 0008):
 * - editing a listing under review or taken offline also sends it back to draft / none, so an
 *   admin never approves content they did not see and an owner has a way back after an offline;
 * - an abnormal listing is frozen for the back office: the owner may delete it but not edit it;
 * - mark-abnormal of an abnormal listing is refused, so two racing admins cannot both "win".
 * Every other cell is refused: 403 when the move is never the actor's, else 409 INVALID_STATE.
 */
export const LISTING_CELLS: readonly ListingCell[] = [
  { from: { status: 'draft', review_status: 'none' }, move: 'submit', actor: 'owner', to: { status: 'draft', review_status: 'pending' } },
  { from: { status: 'draft', review_status: 'rejected' }, move: 'submit', actor: 'owner', to: { status: 'draft', review_status: 'pending' } },
  { from: { status: 'draft', review_status: 'pending' }, move: 'approve', actor: 'admin', to: { status: 'online', review_status: 'approved' } },
  { from: { status: 'draft', review_status: 'pending' }, move: 'reject', actor: 'admin', to: { status: 'draft', review_status: 'rejected' } },
  { from: { status: 'online' }, move: 'offline', actor: 'admin', to: { status: 'offline' } },
  { from: { status: 'draft' }, move: 'mark_abnormal', actor: 'admin', to: { status: 'abnormal' } },
  { from: { status: 'online' }, move: 'mark_abnormal', actor: 'admin', to: { status: 'abnormal' } },
  { from: { status: 'offline' }, move: 'mark_abnormal', actor: 'admin', to: { status: 'abnormal' } },
  { from: { status: 'draft', review_status: 'none' }, move: 'edit', actor: 'owner', to: { status: 'draft' } },
  { from: { status: 'draft', review_status: 'rejected' }, move: 'edit', actor: 'owner', to: { status: 'draft' } },
  { from: { status: 'draft', review_status: 'pending' }, move: 'edit', actor: 'owner', to: { status: 'draft', review_status: 'none' } },
  { from: { status: 'online' }, move: 'edit', actor: 'owner', to: { status: 'draft', review_status: 'none' } },
  { from: { status: 'offline' }, move: 'edit', actor: 'owner', to: { status: 'draft', review_status: 'none' } },
  { from: { status: 'draft' }, move: 'delete', actor: 'owner', to: { status: 'deleted' } },
  { from: { status: 'online' }, move: 'delete', actor: 'owner', to: { status: 'deleted' } },
  { from: { status: 'offline' }, move: 'delete', actor: 'owner', to: { status: 'deleted' } },
  { from: { status: 'abnormal' }, move: 'delete', actor: 'owner', to: { status: 'deleted' } },
  { from: { status: 'online' }, move: 'owner_frozen', actor: 'system', to: { status: 'offline' } },
  { from: { status: 'offline', review_status: 'approved' }, move: 'owner_unfrozen', actor: 'system', to: { status: 'online' } },
];

/** A listing's columns a move sets. */
export interface ListingStateChange extends ListingState {
  status_reason: string | null;
  /** absent: unchanged */
  reject_reason?: string | null;
  updated_at: Date;
}

export interface ListingPlan {
  next: ListingState;
  changes: ListingStateChange;
  /** published with the listing's snapshot after the change */
  event: { type: ListingEventType; reason: string | null };
  /** the audit entry of a back-office move, for the listing moved */
  audit: { action: `listing.${ListingMoveName}`; detail: { from: ListingState; to: ListingState; reason?: string } } | null;
  /** remember the listing as taken offline by its owner's freeze */
  heldByFreeze: boolean;
}

const matches = (from: ListingCell['from'], state: ListingState) =>
  from.status === state.status && (from.review_status === undefined || from.review_status === state.review_status);

/**
 * What `move` by `actor` does to `listing` at `now`, or why it is refused: the actor first (a move
 * that is never theirs), then a rental holding the listing, then its state, then a frozen owner
 * for a move that would put the listing in renters' reach. Pure: the caller reads the facts under
 * the listing's lock and carries the plan out in the same transaction.
 */
export function planListingMove(listing: ListingFacts, move: ListingMove, actor: ListingActor, now: Date): Planned<ListingPlan> {
  const effects = EFFECTS[move.name];
  const found = lookUpCell(LISTING_CELLS, listing, move.name, actor, matches);
  if ('refused' in found && found.refused === 'never_theirs') return new ListingMoveForbidden(actor, move.name);
  if (effects.refusedWhileRented && listing.rented) return new ListingRented();
  if ('refused' in found) return new ListingMoveRefused(listing, move.name);
  const { cell } = found;
  const from: ListingState = { status: listing.status, review_status: listing.review_status };
  const next: ListingState = { status: cell.to.status, review_status: cell.to.review_status ?? listing.review_status };
  if (isPublic(next) && listing.ownerFrozen) return new OwnerFrozen();
  const reason = move.reason ?? null;
  return {
    next,
    changes: {
      ...next,
      status_reason: effects.keepsReason ? reason : null,
      ...(effects.rejectReason === 'keep' ? {} : { reject_reason: effects.rejectReason === 'set' ? reason : null }),
      updated_at: now,
    },
    event: { type: effects.event, reason },
    audit: effects.audited ? { action: `listing.${move.name}`, detail: { from, to: next, ...(reason ? { reason } : {}) } } : null,
    heldByFreeze: effects.heldByFreeze,
  };
}
