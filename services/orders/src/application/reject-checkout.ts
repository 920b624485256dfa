import type { Identity } from '@market/shared/auth';
import type { OrdersDeps } from './deps';
import { disputeOrder } from './open-dispute';
import { partyOrder } from './order-access';
import { toOrderView } from './order-view';

/** The renter rejects the owner's correction: a checkout dispute opens and the order waits for arbitration. */
export async function rejectCheckout(deps: OrdersDeps, identity: Identity, id: string, reason: string) {
  return deps.db.transaction(async (tx) => {
    const { order, role, userId } = await partyOrder(tx, id, identity, { lock: true });
    const { order: moved } = await disputeOrder(deps, tx, order, { trigger: 'reject_checkout', role, userId, identity, reason, evidenceKeys: [] });
    return toOrderView(moved);
  });
}
