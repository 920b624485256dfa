import { type EventData } from '@market/contracts';
import { isUuid, type Tx } from '@market/shared/db';
import { type EventWriter } from '@market/shared/events';
import { applyOwnerStanding, lockListingsOfOwner } from '../persistence/owner-standing-repository';
import { carryOutListingPlan, systemPlanFor } from './listing-moves';

export const OWNER_FROZEN_REASON = 'owner frozen';

/**
 * `user.frozen`: the owner is frozen from now on (approvals of its listings are refused), and
 * its online listings go offline, each with its own `listing.offlined`, remembered as held by the
 * freeze. A freeze older than the owner's last applied unfreeze changes nothing.
 */
export async function takeOwnerListingsOffline(tx: Tx, events: EventWriter, data: EventData<'user.frozen'>) {
  if (!isUuid(data.user_id)) return;
  if (!(await applyOwnerStanding(tx, data.user_id, true, new Date(data.frozen_at)))) return;
  for (const row of await lockListingsOfOwner(tx, data.user_id)) {
    const plan = systemPlanFor(row, { name: 'owner_frozen', reason: OWNER_FROZEN_REASON }, true);
    if (plan) await carryOutListingPlan(tx, events, row, plan, { actor: 'system', actorId: data.frozen_by });
  }
}
