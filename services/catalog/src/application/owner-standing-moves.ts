import { type EventData } from '@market/contracts';
import { isUuid, type Tx } from '@market/shared/db';
import { type EventWriter } from '@market/shared/events';
import { applyOwnerStanding, lockListingsOfOwner, takeFreezeHolds } from '../persistence/owner-standing-repository';
import { carryOutListingPlan, systemPlanFor } from './listing-moves';

interface StandingChange {
  ownerId: string;
  frozen: boolean;
  at: string;
  by: string;
}

/**
 * A freeze or unfreeze of an owner, applied to its listings. A change older than the owner's last
 * applied one changes nothing (events of one user may arrive out of order).
 */
async function changeOwnerStanding(tx: Tx, events: EventWriter, change: StandingChange) {
  if (!isUuid(change.ownerId)) return;
  if (!(await applyOwnerStanding(tx, change.ownerId, change.frozen, new Date(change.at)))) return;
  const rows = change.frozen ? await lockListingsOfOwner(tx, change.ownerId) : await takeFreezeHolds(tx, change.ownerId);
  const cause = change.frozen ? { name: 'owner_frozen', reason: 'owner frozen' } as const : { name: 'owner_unfrozen', reason: 'owner unfrozen' } as const;
  for (const row of rows) {
    const plan = systemPlanFor(row, cause, change.frozen);
    if (plan) await carryOutListingPlan(tx, events, row, plan, { actor: 'system', actorId: change.by });
  }
}

/**
 * `user.frozen`: the owner is frozen from now on (approvals of its listings are refused), and its
 * online listings go offline, each with its own `listing.offlined`, remembered as held by the freeze.
 */
export function takeOwnerListingsOffline(tx: Tx, events: EventWriter, data: EventData<'user.frozen'>) {
  return changeOwnerStanding(tx, events, { ownerId: data.user_id, frozen: true, at: data.frozen_at, by: data.frozen_by });
}

/**
 * `user.unfrozen`: the listings the freeze took offline go back online (`listing.restored`), unless
 * the back office moved them meanwhile (marked abnormal); listings awaiting review stay there for an
 * admin to decide.
 */
export function bringOwnerListingsBack(tx: Tx, events: EventWriter, data: EventData<'user.unfrozen'>) {
  return changeOwnerStanding(tx, events, { ownerId: data.user_id, frozen: false, at: data.unfrozen_at, by: data.unfrozen_by });
}
