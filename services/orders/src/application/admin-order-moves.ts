import { type adminCloseOrder, type RouteBody } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { InvalidInput, InvalidState, NotFound } from '@market/shared/errors';
import { OrderChanged } from '../domain/errors';
import { arbitratedSettlement } from '../domain/arbitration';
import { lockOpenDisputeOf } from '../persistence/dispute-repository';
import { findOrder, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { assertMove, moveOrder, settlementFigures } from './order-moves';
import { escrowOf, feeRateOf, toOrderView } from './order-view';
import { resolveOpenDispute } from './resolve-dispute';
import { currentSettings } from './settings';

type Decision = { reason: string; expected_status?: OrderRow['status']; breakdown?: RouteBody<typeof adminCloseOrder>['breakdown'] };

/**
 * An admin decides on the state the order was in when the request arrived: one that had to wait for
 * another move of the order (another admin's decision, a party, the timeout scan), or that names a
 * state the order is no longer in, is refused, so of two admins deciding at once exactly one wins.
 */
export function assertDecidedOnCurrentState(order: OrderRow, arrivedAt: Date, expected: OrderRow['status'] | undefined) {
  if (order.status_changed_at > arrivedAt) {
    throw new OrderChanged(`the order became ${order.status} while this decision waited; look at it again`);
  }
  if (expected !== undefined && expected !== order.status) {
    throw new OrderChanged(`the order is ${order.status}, not ${expected}; look at it again`);
  }
}

/**
 * The back office closes an order (the escrow back to the renter, or split by a breakdown for a paid
 * order) or marks it abnormal (the escrow stays held). An open dispute of the order is resolved by the
 * same decision, so an order never ends with a dispute still open. One transaction; the order row is locked.
 */
export async function adminEndOrder(
  deps: OrdersDeps,
  identity: AdminIdentity,
  id: string,
  trigger: 'admin_close' | 'admin_mark_abnormal',
  decision: Decision,
) {
  const arrivedAt = new Date();
  if (!isUuid(id)) throw new NotFound('order not found');
  return deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, id, { lock: true });
    if (!order) throw new NotFound('order not found');
    assertMove(order, trigger, 'admin');
    assertDecidedOnCurrentState(order, arrivedAt, decision.expected_status);
    const settings = await currentSettings(tx);
    if (decision.breakdown && order.paid_at === null) throw new InvalidState('the order was never paid; there is nothing to split');
    const outcome = trigger === 'admin_close' ? arbitratedSettlement('close', escrowOf(order), decision.breakdown, null, feeRateOf(order, settings)) : null;
    if (outcome && !outcome.ok) {
      throw new InvalidInput(outcome.errors.map((e) => ({ path: e.path === 'settlement' ? 'breakdown' : `breakdown.${e.path}`, message: e.message })));
    }
    const settlement = outcome?.settlement ?? null;
    const moved = await moveOrder(deps, tx, order, {
      trigger,
      actor: 'admin',
      identity,
      settings,
      reason: decision.reason,
      ...(settlement
        ? {
            // An unpaid order has nothing to show as paid out; the wallet voids its escrow record.
            changes: order.paid_at ? { checkout: { ...settlement, reason: decision.reason, evidence_keys: [] } } : {},
            eventData: settlementFigures(settlement),
          }
        : {}),
    });
    const dispute = await lockOpenDisputeOf(tx, order.id);
    if (dispute) {
      await resolveOpenDispute(deps, tx, dispute, order, {
        result: trigger === 'admin_close' ? 'close' : 'mark_abnormal',
        note: decision.reason,
        identity,
        settlement,
      });
    }
    return toOrderView(moved);
  });
}
