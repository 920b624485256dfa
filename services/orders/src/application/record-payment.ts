import type { Identity } from '@market/shared/auth';
import { isRefusal } from '@market/shared/planning';
import { moveRefusal } from '../domain/plan-move';
import { findOrder, markCredentialsCheckedIfUnchanged, updateOrder, type OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { carryOut, carryOutAtVersion, moveOrder, planOrderMove } from './order-moves';
import type { OrderCharge } from './ports';

/**
 * Records the wallet's charge on the order: pending_payment → pending_handoff, the charge request
 * settled, the platform rate in force frozen for every later settlement (issue 19 item 3). The renter's
 * pay is refused (409) when the order has moved meanwhile; the reconciler (`system`) gets null.
 * Given the order as the caller last wrote it (`known`), the payment is recorded on it in one
 * statement if it is still at that version (ADR 0078); otherwise it is decided under the order's lock.
 */
export async function recordPayment(
  deps: OrdersDeps,
  id: string,
  charge: OrderCharge,
  by: { actor: 'renter'; identity: Identity } | { actor: 'system'; identity: null },
  known?: OrderRow,
): Promise<OrderRow | null> {
  const move = { type: 'pay' as const, paidAt: new Date(charge.charged_at) };
  const mover = { role: by.actor, identity: by.identity };
  if (known) {
    const planned = await planOrderMove(deps, deps.db, known, move, mover);
    const done = isRefusal(planned) ? null : await carryOutAtVersion(deps, known, planned, by.identity);
    if (done) return done.order;
  }
  return deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, id, { lock: true });
    if (!order) return null;
    const outcome = await planOrderMove(deps, tx, order, move, mover);
    if (isRefusal(outcome)) {
      // the reconciler learns of a charge the order has moved past (a renter's pay recorded it first)
      if (by.actor === 'system') return null;
      throw outcome;
    }
    return (await carryOut(deps, tx, order, outcome, by.identity)).order;
  });
}

/** The system has not yet looked for stored credentials, and may hand over now (the order waits for its handoff). */
function awaitsStoredCredentials(order: OrderRow): boolean {
  return order.credentials_checked_at === null && moveRefusal(order, 'hand_over', 'system') === null;
}

/**
 * After payment, hands the listing's stored credentials over (the `handoff` move made by `system`).
 * They are opened only now, after the charge has committed (issue 19 item 5), outside any
 * transaction; the order is locked only to write the handoff, and is looked at once.
 */
export async function handOverStoredCredentials(deps: OrdersDeps, paid: OrderRow): Promise<OrderRow> {
  if (!awaitsStoredCredentials(paid)) return paid;
  const credentials = await deps.listings.credentials(paid.listing_id);
  if (credentials === null) {
    // Nothing to hand over: the order still as paid left it (same version) needs neither a lock nor
    // a transaction to record the check, one statement instead of four (ADR 0068); an order that
    // moved meanwhile takes the locked way below.
    const checked = await markCredentialsCheckedIfUnchanged(deps.db, paid.id, paid.version, new Date());
    if (checked) return checked;
  }
  return deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, paid.id, { lock: true });
    if (!order || !awaitsStoredCredentials(order)) return order ?? paid;
    const checked = await updateOrder(tx, order.id, { credentials_checked_at: new Date(), updated_at: new Date() });
    if (credentials === null) return checked;
    const move = { type: 'hand_over' as const, content: credentials, attachmentKeys: [] };
    return (await moveOrder(deps, tx, checked, move, { role: 'system', identity: null })).order;
  });
}
