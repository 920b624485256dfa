import { type EventData } from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { type Tx } from '@market/shared/db';
import { recordAudit, type EventWriter } from '@market/shared/events';
import { planOrThrow } from '@market/shared/planning';
import { ListingMoveRefused } from '../domain/errors';
import {
  planListingMove,
  type ListingActor,
  type ListingFacts,
  type ListingMove,
  type ListingPlan,
} from '../domain/plan-listing-move';
import { updateListing, type ListingRow, type ListingUpdate } from '../persistence/listing-repository';
import { isOwnerFrozen, recordFreezeHold } from '../persistence/owner-standing-repository';

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

/** Who makes a move: the actor the plan judges, the id its event names, the identity its audit entry names. */
export interface MoveBy {
  actor: ListingActor;
  actorId: string | null;
  identity?: Identity | null;
}

/** What the plan needs to know of a listing read under lock. */
export function listingFacts(row: Pick<ListingRow, 'status' | 'review_status' | 'rented'>, ownerFrozen: boolean): ListingFacts {
  return { status: row.status, review_status: row.review_status, rented: row.rented, ownerFrozen };
}

/**
 * The plan of `move` on a listing read under lock, or its refusal thrown. The owner's standing is
 * read after the listing lock, which a freeze being applied also takes, so an approval and a
 * freeze racing each other cannot leave the listing online.
 */
export async function planMoveOf(tx: Tx, row: ListingRow, move: ListingMove, actor: ListingActor): Promise<ListingPlan> {
  return planOrThrow(planListingMove(listingFacts(row, await isOwnerFrozen(tx, row.owner_id)), move, actor, new Date()));
}

/**
 * The plan of a move the system makes on each of an owner's listings it applies to (their
 * standing changed), or null for a listing the state table has no such move from.
 */
export function systemPlanFor(row: ListingRow, move: ListingMove, ownerFrozen: boolean): ListingPlan | null {
  const outcome = planListingMove(listingFacts(row, ownerFrozen), move, 'system', new Date());
  return outcome instanceof ListingMoveRefused ? null : planOrThrow(outcome);
}

/**
 * Carries a plan out on the locked listing in the caller's transaction: its columns (and `content`,
 * edited fields made by the same move), its event, its audit entry, its freeze hold. A concurrent
 * move waits for the lock, then finds the new state and is refused.
 */
export async function carryOutListingPlan(
  tx: Tx,
  events: EventWriter,
  row: ListingRow,
  plan: ListingPlan,
  by: MoveBy,
  content: Omit<ListingUpdate, keyof ListingPlan['changes']> = {},
): Promise<ListingRow> {
  const moved = await updateListing(tx, row.id, { ...content, ...plan.changes });
  await events.publish(tx, plan.event.type, listingSnapshot(moved, plan.event.reason, by.actorId));
  if (plan.audit) await recordAudit(events, tx, by.identity ?? null, { ...plan.audit, biz_type: 'listing', biz_id: row.id });
  if (plan.heldByFreeze) await recordFreezeHold(tx, row.id, row.owner_id);
  return moved;
}

/** Plans `move` on a locked listing and carries it out, or throws its refusal. */
export async function moveListing(tx: Tx, events: EventWriter, row: ListingRow, move: ListingMove, by: MoveBy): Promise<ListingRow> {
  return carryOutListingPlan(tx, events, row, await planMoveOf(tx, row, move, by.actor), by);
}
