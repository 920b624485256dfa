import type { Identity } from '@market/shared/auth';
import { v7 as uuidv7 } from 'uuid';
import type { OrdersDeps } from './deps';
import { toOrderView } from './order-view';
import { partyMove } from './party-moves';

/** The renter rejects the owner's correction: a checkout dispute opens and the order waits for arbitration. */
export async function rejectCheckout(deps: OrdersDeps, identity: Identity, id: string, reason: string) {
  const { order } = await partyMove(deps, identity, id, { type: 'reject_checkout', disputeId: uuidv7(), reason, evidenceKeys: [] });
  return toOrderView(order);
}
