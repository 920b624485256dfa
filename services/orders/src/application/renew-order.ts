import { MAX_MONEY_FEN } from '@market/contracts';
import type { Identity } from '@market/shared/auth';
import { type DomainError } from '@market/shared/errors';
import { planOrThrow } from '@market/shared/planning';
import { v7 as uuidv7 } from 'uuid';
import { ListingUnavailable } from '../domain/errors';
import { moveRefusal } from '../domain/plan-move';
import { renewalRent } from '../domain/renewal';
import { findOrder, updateOrder, type OrderRow } from '../persistence/order-repository';
import { endRenewal, insertRenewal, type RenewalRow } from '../persistence/renewal-repository';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { carryOut, planOrderMove, type Mover } from './order-moves';
import { toOrderView } from './order-view';
import type { RenewalCharge } from './ports';

/**
 * Records a renewal the wallet charged, on the locked order: the `renew` move (ends_at, hours, rent and
 * amount move on, `order.renewed` for both parties) and the renewal's end. Null when the order no longer
 * waits for this renewal (recorded already).
 */
export async function recordRenewal(deps: OrdersDeps, renewal: RenewalRow, charge: RenewalCharge, by: Mover): Promise<OrderRow | null> {
  return deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, renewal.order_id, { lock: true });
    if (!order || order.renewal_charge_id !== renewal.id) return null;
    const move = { type: 'renew' as const, renewalId: renewal.id, hours: renewal.hours, rent: Number(charge.amount) };
    const done = await carryOut(deps, tx, order, planOrThrow(await planOrderMove(deps, tx, order, move, by)), by.identity);
    await endRenewal(tx, renewal.id, { status: 'renewed', previous_ends_at: order.ends_at!, ends_at: done.order.ends_at!, renewed_at: new Date(charge.charged_at) });
    return done.order;
  });
}

/** The renewal was never charged: the order no longer waits for it and may move (or be renewed) again. */
export async function forgetRenewal(deps: OrdersDeps, renewal: RenewalRow): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const order = await findOrder(tx, renewal.order_id, { lock: true });
    await endRenewal(tx, renewal.id, { status: 'not_charged' });
    if (order?.renewal_charge_id === renewal.id) await updateOrder(tx, order.id, { renewal_charge_id: null, updated_at: new Date() });
  });
}

/**
 * The renter extends an order in use by whole hours (docs/rules.md §4 Renewal, ADR 0065), with no lock
 * or connection held across a call, as pay does (ADR 0028):
 * 1. the listing is read from catalog; under the order's lock the state table and the renewal rules
 *    decide, and the renewal is recorded as charging on the order (no other move until its outcome);
 * 2. the wallet charges the extra rent into the escrow, keyed by the renewal id;
 * 3. charged: the renewal is recorded (the `renew` move); refused: the order stops waiting and the
 *    wallet's refusal is answered. A wallet that fails or answers too late leaves the renewal charging:
 *    the reconciler asks the wallet once its deadline has passed and records whatever happened.
 */
export async function renewOrder(deps: OrdersDeps, identity: Identity, id: string, hours: number) {
  const { order: seen } = await partyOrder(deps.db, id, identity);
  const listing = await deps.listings.byId(seen.listing_id);
  const requestedAt = new Date();
  const notAfter = new Date(requestedAt.getTime() + deps.chargeWindowMs);
  const renewal = await deps.db.transaction(async (tx) => {
    const { order, role } = await partyOrder(tx, id, identity, { lock: true });
    const refusal: DomainError | null = moveRefusal(order, 'renew', role);
    if (refusal) throw refusal;
    if (!listing) throw new ListingUnavailable();
    const rent = renewalRent(order, hours, listing, await deps.settings.current(tx), requestedAt, deps.minuteMs, MAX_MONEY_FEN);
    if (typeof rent !== 'number') throw rent;
    const row = await insertRenewal(tx, { id: uuidv7(), order_id: order.id, hours, rent, requested_at: requestedAt, charge_deadline_at: notAfter });
    await updateOrder(tx, order.id, { renewal_charge_id: row.id, updated_at: requestedAt });
    return row;
  });
  const outcome = await deps.wallet.chargeRenewal({ orderId: renewal.order_id, renewalId: renewal.id, renterId: seen.renter_id, amount: renewal.rent, notAfter });
  if ('refused' in outcome) {
    await forgetRenewal(deps, renewal);
    throw outcome.refused;
  }
  const renewed = await recordRenewal(deps, renewal, outcome.charged, { role: 'renter', identity });
  return toOrderView(renewed ?? (await findOrder(deps.db, renewal.order_id))!);
}
