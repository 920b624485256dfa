import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { problems } from '@market/shared/http';
import { refundAll } from '../domain/settlement';
import { lockOpenDisputeOf } from '../persistence/dispute-repository';
import { findOrder } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { assertMove, moveOrder, settlementFigures } from './order-moves';
import { escrowOf, toOrderView } from './order-view';
import { resolveOpenDispute } from './resolve-dispute';
import { currentSettings } from './settings';

/**
 * The back office closes an order (whatever its escrow holds goes back to the renter) or marks it
 * abnormal (the escrow stays held). An open dispute of the order is resolved by the same decision,
 * so an order never ends with a dispute still open. One transaction; the order row is locked.
 */
export async function adminEndOrder(
  deps: OrdersDeps,
  identity: AdminIdentity,
  id: string,
  trigger: 'admin_close' | 'admin_mark_abnormal',
  reason: string,
) {
  if (!isUuid(id)) throw problems.notFound('order not found');
  return deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, id, { lock: true });
    if (!order) throw problems.notFound('order not found');
    assertMove(order, trigger, 'admin');
    const settlement = trigger === 'admin_close' ? refundAll(escrowOf(order)) : null;
    const moved = await moveOrder(deps, tx, order, {
      trigger,
      actor: 'admin',
      identity,
      settings: await currentSettings(tx),
      reason,
      ...(settlement
        ? {
            // An unpaid order has nothing to show as paid out; the wallet voids its escrow record.
            changes: order.paid_at ? { checkout: { ...settlement, reason, evidence_keys: [] } } : {},
            eventData: settlementFigures(settlement),
          }
        : {}),
    });
    const dispute = await lockOpenDisputeOf(tx, order.id);
    if (dispute) {
      await resolveOpenDispute(deps, tx, dispute, order, {
        result: trigger === 'admin_close' ? 'close' : 'mark_abnormal',
        note: reason,
        identity,
        settlement,
      });
    }
    return toOrderView(moved);
  });
}
