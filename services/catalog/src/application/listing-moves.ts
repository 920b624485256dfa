import { type EventData } from '@market/contracts';
import { type Tx } from '@market/shared/db';
import { type EventWriter } from '@market/shared/events';
import { InvalidState } from '@market/shared/errors';
import { nextListingState, type ListingTrigger } from '../domain/listing-state';
import { updateListing, type ListingRow, type ListingUpdate } from '../persistence/listing-repository';

type ListingEventType =
  | 'listing.submitted'
  | 'listing.approved'
  | 'listing.rejected'
  | 'listing.offlined'
  | 'listing.marked_abnormal'
  | 'listing.updated'
  | 'listing.deleted'
  | 'listing.restored';

export const LISTING_EVENT_OF: Record<ListingTrigger, ListingEventType> = {
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

/** The moves whose reason is kept on the row for the back office (why it is offline or abnormal). */
const KEEPS_REASON: ReadonlySet<ListingTrigger> = new Set(['offline', 'mark_abnormal', 'owner_frozen']);

/** Every listing event carries the whole snapshot (contracts/events.ts), so readers need nothing else. */
export function listingSnapshot(row: ListingRow, reason: string | null, actorId: string | null): EventData<'listing.updated'> {
  return {
    listing_id: row.id,
    owner_id: row.owner_id,
    title: row.title,
    game: row.game,
    hourly_price: Number(row.hourly_price),
    deposit: Number(row.deposit),
    min_hours: Number(row.min_hours),
    max_hours: row.max_hours === null ? null : Number(row.max_hours),
    status: row.status,
    review_status: row.review_status,
    updated_at: row.updated_at.toISOString(),
    reason,
    actor_id: actorId,
  };
}

/** Refuses a move the state table does not have; `row` must have been read under lock. */
export function assertMove(row: ListingRow, trigger: ListingTrigger) {
  const next = nextListingState(row, trigger);
  if (!next) {
    throw new InvalidState(`listing is ${row.status} / ${row.review_status}; cannot ${trigger.replace('_', ' ')}`);
  }
  return next;
}

export interface MoveInput {
  trigger: ListingTrigger;
  reason?: string | null;
  actorId: string | null;
  /** further column changes made by the same move (edited content, reject reason) */
  changes?: Omit<ListingUpdate, 'updated_at'>;
}

/**
 * Moves a locked listing along the state table and writes its event, in the caller's transaction:
 * a concurrent move waits for the lock, then finds the new state and is refused.
 */
export async function moveListing(tx: Tx, events: EventWriter, row: ListingRow, input: MoveInput): Promise<ListingRow> {
  const next = assertMove(row, input.trigger);
  const reason = input.reason ?? null;
  const moved = await updateListing(tx, row.id, {
    ...input.changes,
    status: next.status,
    review_status: next.review_status,
    status_reason: KEEPS_REASON.has(input.trigger) ? reason : null,
    updated_at: new Date(),
  });
  await events.publish(tx, LISTING_EVENT_OF[input.trigger], listingSnapshot(moved, reason, input.actorId));
  return moved;
}
