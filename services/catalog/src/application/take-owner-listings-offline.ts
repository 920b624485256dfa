import { isUuid, type EntityManager, type EventWriter } from '@market/shared';
import { lockOnlineListingsOf } from '../persistence/listing-repository';
import { moveListing } from './listing-moves';

export const OWNER_FROZEN_REASON = 'owner frozen';

/** A frozen user's online listings go offline, each with its own `listing.offlined`. */
export async function takeOwnerListingsOffline(manager: EntityManager, events: EventWriter, ownerId: string, frozenBy: string) {
  if (!isUuid(ownerId)) return;
  for (const row of await lockOnlineListingsOf(manager, ownerId)) {
    await moveListing(manager, events, row, { trigger: 'offline', reason: OWNER_FROZEN_REASON, actorId: frozenBy });
  }
}
