import { type arbitrateDispute as arbitrateRoute, type RouteBody } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { InvalidInput, InvalidState, NotFound } from '@market/shared/errors';
import { ARBITRATION_TRIGGER, arbitratedSettlement } from '../domain/arbitration';
import { findDispute } from '../persistence/dispute-repository';
import { findOrder } from '../persistence/order-repository';
import { assertDecidedOnCurrentState } from './admin-order-moves';
import type { OrdersDeps } from './deps';
import { toDisputeView } from './dispute-view';
import { assertMove, moveOrder, settlementFigures } from './order-moves';
import { escrowOf, feeRateOf } from './order-view';
import { resolveOpenDispute } from './resolve-dispute';
import { currentSettings } from './settings';

/**
 * An admin decides an open dispute: the order completes, closes or turns abnormal with the money the
 * decision says, and the dispute is resolved, in one transaction. The order is locked first (as every
 * move locks it), then the dispute: of two admins arbitrating at once the second waits, then finds the
 * dispute resolved and is refused with 409.
 */
export async function arbitrateDispute(deps: OrdersDeps, identity: AdminIdentity, id: string, body: RouteBody<typeof arbitrateRoute>) {
  const arrivedAt = new Date();
  if (!isUuid(id)) throw new NotFound('dispute not found');
  return deps.db.transaction(async (tx) => {
    const seen = await findDispute(tx, id);
    if (!seen) throw new NotFound('dispute not found');
    const order = (await findOrder(tx, seen.order_id, { lock: true }))!;
    const dispute = (await findDispute(tx, id, { lock: true }))!;
    if (dispute.status !== 'open') throw new InvalidState(`dispute is resolved (${dispute.result}); cannot arbitrate`);
    const trigger = ARBITRATION_TRIGGER[body.result];
    assertMove(order, trigger, 'admin');
    assertDecidedOnCurrentState(order, arrivedAt, undefined);
    const settings = await currentSettings(tx);
    const outcome = arbitratedSettlement(body.result, escrowOf(order), body.breakdown, order.checkout, feeRateOf(order, settings));
    if (outcome && !outcome.ok) {
      throw new InvalidInput(outcome.errors.map((e) => ({ path: e.path === 'settlement' ? 'breakdown' : `breakdown.${e.path}`, message: e.message })));
    }
    const settlement = outcome?.settlement ?? null;
    await moveOrder(deps, tx, order, {
      trigger,
      actor: 'admin',
      identity,
      settings,
      reason: body.note,
      ...(settlement
        ? { changes: { checkout: { ...settlement, reason: body.note, evidence_keys: [] } }, eventData: settlementFigures(settlement) }
        : {}),
    });
    const resolved = await resolveOpenDispute(deps, tx, dispute, order, { result: body.result, note: body.note, identity, settlement });
    return toDisputeView(resolved);
  });
}
