import { type adminCloseOrder, type RouteBody } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { lockOpenDisputeOf } from '../persistence/dispute-repository';
import { findOrder, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { moveOrder } from './order-moves';
import { toOrderView } from './order-view';

type Decision = { reason: string; expected_status?: OrderRow['status']; breakdown?: RouteBody<typeof adminCloseOrder>['breakdown'] };

/**
 * The back office closes an order or marks it abnormal, deciding on the order as the request read it
 * before taking the lock (planMove refuses the decision when the locked order differs); an open
 * dispute of the order is resolved by the same decision (planMove says how). One transaction; the
 * order row is locked, then its open dispute.
 */
export async function adminEndOrder(
  deps: OrdersDeps,
  identity: AdminIdentity,
  id: string,
  type: 'admin_close' | 'admin_mark_abnormal',
  decision: Decision,
) {
  if (!isUuid(id)) throw new NotFound('order not found');
  const seen = await findOrder(deps.db, id);
  if (!seen) throw new NotFound('order not found');
  return deps.db.transaction(async (tx) => {
    const order = (await findOrder(tx, id, { lock: true }))!;
    const openDispute = await lockOpenDisputeOf(tx, order.id);
    const move = { type, seen: { status: seen.status, version: seen.version }, reason: decision.reason, expectedStatus: decision.expected_status, breakdown: decision.breakdown, openDispute };
    const { order: moved } = await moveOrder(deps, tx, order, move, { role: 'admin', identity });
    return toOrderView(moved);
  });
}
