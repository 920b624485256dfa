import type { Identity } from '@market/shared';
import { v7 as uuidv7 } from 'uuid';
import { insertDispute } from '../persistence/dispute-repository';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { assertMove, moveOrder } from './order-moves';
import { toOrderView } from './order-views';
import { currentSettings } from './settings';

/** The renter rejects the owner's correction: a checkout dispute opens and the order waits for arbitration. */
export async function rejectCheckout(deps: OrdersDeps, identity: Identity, id: string, reason: string) {
  return deps.db.transaction(async (manager) => {
    const { order, role, userId } = await partyOrder(manager, id, identity, { lock: true });
    assertMove(order, 'reject_checkout', role);
    const dispute = await insertDispute(manager, {
      id: uuidv7(),
      order_id: order.id,
      type: 'checkout',
      raised_by: userId,
      reason,
      evidence_keys: [],
      created_at: new Date(),
    });
    const moved = await moveOrder(deps, manager, order, {
      trigger: 'reject_checkout',
      actor: role,
      identity,
      settings: await currentSettings(manager),
      reason,
      changes: { dispute_id: dispute.id },
    });
    await deps.events.publish(manager, 'dispute.opened', {
      dispute_id: dispute.id,
      order_id: order.id,
      renter_id: order.renter_id,
      owner_id: order.owner_id,
      type: dispute.type,
      raised_by: userId,
      reason,
    });
    return toOrderView(moved);
  });
}
