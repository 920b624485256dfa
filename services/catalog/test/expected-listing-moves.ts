/**
 * What every listing move should do, written out by hand from docs/rules.md §4 and ADR 0008, cell by
 * cell, apart from the planner's table: the unit test of the plan and the state-table test through
 * the gateway both hold the service to this list.
 */

/** Each allowed cell: `from  move  by  → to`, states as status/review_status. */
const ALLOWED = `
  draft/none        submit          owner   draft/pending
  draft/rejected    submit          owner   draft/pending
  draft/pending     approve         admin   online/approved
  draft/pending     reject          admin   draft/rejected
  online/none       offline         admin   offline/none
  online/pending    offline         admin   offline/pending
  online/approved   offline         admin   offline/approved
  online/rejected   offline         admin   offline/rejected
  draft/none        mark_abnormal   admin   abnormal/none
  draft/pending     mark_abnormal   admin   abnormal/pending
  draft/approved    mark_abnormal   admin   abnormal/approved
  draft/rejected    mark_abnormal   admin   abnormal/rejected
  online/none       mark_abnormal   admin   abnormal/none
  online/pending    mark_abnormal   admin   abnormal/pending
  online/approved   mark_abnormal   admin   abnormal/approved
  online/rejected   mark_abnormal   admin   abnormal/rejected
  offline/none      mark_abnormal   admin   abnormal/none
  offline/pending   mark_abnormal   admin   abnormal/pending
  offline/approved  mark_abnormal   admin   abnormal/approved
  offline/rejected  mark_abnormal   admin   abnormal/rejected
  draft/none        edit            owner   draft/none
  draft/rejected    edit            owner   draft/rejected
  draft/pending     edit            owner   draft/none
  online/none       edit            owner   draft/none
  online/pending    edit            owner   draft/none
  online/approved   edit            owner   draft/none
  online/rejected   edit            owner   draft/none
  offline/none      edit            owner   draft/none
  offline/pending   edit            owner   draft/none
  offline/approved  edit            owner   draft/none
  offline/rejected  edit            owner   draft/none
  draft/none        delete          owner   deleted/none
  draft/pending     delete          owner   deleted/pending
  draft/approved    delete          owner   deleted/approved
  draft/rejected    delete          owner   deleted/rejected
  online/none       delete          owner   deleted/none
  online/pending    delete          owner   deleted/pending
  online/approved   delete          owner   deleted/approved
  online/rejected   delete          owner   deleted/rejected
  offline/none      delete          owner   deleted/none
  offline/pending   delete          owner   deleted/pending
  offline/approved  delete          owner   deleted/approved
  offline/rejected  delete          owner   deleted/rejected
  abnormal/none     delete          owner   deleted/none
  abnormal/pending  delete          owner   deleted/pending
  abnormal/approved delete          owner   deleted/approved
  abnormal/rejected delete          owner   deleted/rejected
  online/none       owner_frozen    system  offline/none
  online/pending    owner_frozen    system  offline/pending
  online/approved   owner_frozen    system  offline/approved
  online/rejected   owner_frozen    system  offline/rejected
  offline/approved  owner_unfrozen  system  online/approved
`;

export const STATUSES = ['draft', 'online', 'offline', 'abnormal', 'deleted'] as const;
export const REVIEWS = ['none', 'pending', 'approved', 'rejected'] as const;
export type Status = (typeof STATUSES)[number];
export type Review = (typeof REVIEWS)[number];
export interface State {
  status: Status;
  review_status: Review;
}

export const MOVES = ['submit', 'approve', 'reject', 'offline', 'mark_abnormal', 'edit', 'delete', 'owner_frozen', 'owner_unfrozen'] as const;
export type Move = (typeof MOVES)[number];
export const ACTORS = ['owner', 'admin', 'system'] as const;
export type Actor = (typeof ACTORS)[number];

/** Whose move each is: the owner's through their listing routes, the back office's, identity's events. */
export const ACTOR_OF: Record<Move, Actor> = {
  submit: 'owner',
  edit: 'owner',
  delete: 'owner',
  approve: 'admin',
  reject: 'admin',
  offline: 'admin',
  mark_abnormal: 'admin',
  owner_frozen: 'system',
  owner_unfrozen: 'system',
};

/** The event each move publishes. */
export const EVENT_OF: Record<Move, string> = {
  submit: 'listing.submitted',
  approve: 'listing.approved',
  reject: 'listing.rejected',
  offline: 'listing.offlined',
  mark_abnormal: 'listing.marked_abnormal',
  edit: 'listing.updated',
  delete: 'listing.deleted',
  owner_frozen: 'listing.offlined',
  owner_unfrozen: 'listing.restored',
};

export const key = (s: State) => `${s.status}/${s.review_status}`;

const stateOf = (text: string): State => {
  const [status, review_status] = text.split('/');
  return { status: status as Status, review_status: review_status as Review };
};

const cells = new Map(
  ALLOWED.trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([from, move, by, to]) => [`${from} ${move} ${by}`, stateOf(to!)] as const),
);

export type Expected =
  | { allowed: true; to: State }
  | { allowed: false; code: 'FORBIDDEN' | 'LISTING_UNAVAILABLE' | 'INVALID_STATE' | 'OWNER_FROZEN'; message?: string };

/**
 * The expected outcome of a move: never the actor's → 403; edit or delete of a rented listing →
 * LISTING_UNAVAILABLE; a cell not listed → INVALID_STATE; a move that would put a frozen owner's
 * listing online → OWNER_FROZEN.
 */
export function expectedOutcome(state: State, move: Move, actor: Actor, facts: { rented?: boolean; ownerFrozen?: boolean } = {}): Expected {
  if (ACTOR_OF[move] !== actor) return { allowed: false, code: 'FORBIDDEN' };
  if (facts.rented && (move === 'edit' || move === 'delete')) return { allowed: false, code: 'LISTING_UNAVAILABLE' };
  const to = cells.get(`${key(state)} ${move} ${actor}`);
  if (!to) return { allowed: false, code: 'INVALID_STATE', message: `listing is ${state.status} / ${state.review_status}; cannot ${move.replace('_', ' ')}` };
  if (facts.ownerFrozen && to.status === 'online') return { allowed: false, code: 'OWNER_FROZEN' };
  return { allowed: true, to };
}

export const ALL_STATES: State[] = STATUSES.flatMap((status) => REVIEWS.map((review_status) => ({ status, review_status })));
