import { type EventData } from '@market/contracts';
import { isUuid, type Tx } from '@market/shared/db';
import { type EventWriter } from '@market/shared/events';
import { applyOwnerStanding, takeFreezeHolds } from '../persistence/owner-standing-repository';
import { carryOutListingPlan, systemPlanFor } from './listing-moves';

export const OWNER_UNFROZEN_REASON = 'owner unfrozen';

/**
 * `user.unfrozen`: the listings the freeze took offline go back online (`listing.restored`),
 * unless the back office moved them meanwhile (marked abnormal); listings awaiting review stay
 * there for an admin to decide. An unfreeze older than the owner's last applied freeze changes nothing.
 */
export async function bringOwnerListingsBack(tx: Tx, events: EventWriter, data: EventData<'user.unfrozen'>) {
  if (!isUuid(data.user_id)) return;
  if (!(await applyOwnerStanding(tx, data.user_id, false, new Date(data.unfrozen_at)))) return;
  for (const row of await takeFreezeHolds(tx, data.user_id)) {
    const plan = systemPlanFor(row, { name: 'owner_unfrozen', reason: OWNER_UNFROZEN_REASON }, false);
    if (plan) await carryOutListingPlan(tx, events, row, plan, { actor: 'system', actorId: data.unfrozen_by });
  }
}
