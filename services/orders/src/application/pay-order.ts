import type { Identity } from '@market/shared/auth';
import { moveRefusal } from '../domain/plan-move';
import { recordChargeRequest, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { decideOnPartyOrder, partyOrder } from './order-access';
import { toOrderView } from './order-view';
import { handOverStoredCredentials, recordPayment } from './record-payment';

/**
 * The renter pays from the wallet, with no lock or connection held across a call (ADR 0028):
 * 1. the charge request (and until when the wallet may make it) is committed on the order;
 * 2. the wallet charges, keyed by the order id, so repeats and concurrent pays charge once;
 * 3. the charge is recorded (of concurrent pays one moves the order, the others get 409);
 * 4. stored credentials, if any, are opened and handed over.
 * A wallet that fails or answers too late (503) leaves the request on the order: the charge
 * reconciler asks the wallet once the deadline has passed and records whatever happened. A
 * catalog that fails in step 4 leaves a paid order the reconciler hands over later.
 */
export async function payOrder(deps: OrdersDeps, identity: Identity, id: string) {
  const requestedAt = new Date();
  // the wallet refuses the charge after this, so the reconciler never waits on it longer
  const notAfter = new Date(requestedAt.getTime() + deps.chargeWindowMs);
  const order = await requestCharge(deps, identity, id, requestedAt, notAfter);
  const charge = await deps.wallet.charge({
    id: order.id,
    renter_id: order.renter_id,
    owner_id: order.owner_id,
    amount: Number(order.amount),
    not_after: notAfter,
  });
  const paid = (await recordPayment(deps, order.id, charge, { actor: 'renter', identity }, order))!;
  let handedOver = paid;
  try {
    handedOver = await handOverStoredCredentials(deps, paid);
  } catch {
    // The payment stands; the reconciler hands the credentials over once the catalog answers.
  }
  deps.recentOrders.remember(handedOver);
  return toOrderView(handedOver);
}

/**
 * Step 1 on the order as this process last wrote it when that allows the pay, else as read (and
 * refused there), in one statement guarded by that version (ADR 0068, ADR 0083): an order still at
 * that version is the one the pay was decided on. One that changed meanwhile (a concurrent pay, a
 * cancel, the timeout) is read again under its lock and decided there, as always.
 * The order as the request left it, which step 3 records the payment on unless it moved (ADR 0078).
 */
async function requestCharge(deps: OrdersDeps, identity: Identity, id: string, requestedAt: Date, notAfter: Date): Promise<OrderRow> {
  const seen = await decideOnPartyOrder(deps, id, identity, (order, role) => moveRefusal(order, 'pay', role) ?? order);
  const requested = await recordChargeRequest(deps.db, seen.order.id, requestedAt, notAfter, seen.order.version);
  if (requested) return requested;
  return deps.db.transaction(async (tx) => {
    const { order: found, role } = await partyOrder(tx, id, identity, { lock: true });
    const refusedNow = moveRefusal(found, 'pay', role);
    if (refusedNow) throw refusedNow;
    return (await recordChargeRequest(tx, found.id, requestedAt, notAfter))!;
  });
}
