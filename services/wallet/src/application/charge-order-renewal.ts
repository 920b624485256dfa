import { type chargeOrderRenewal as chargeContract, type InternalInput } from '@market/contracts';
import { isUuid } from '@market/shared/db';
import { Conflict, InvalidState, NotFound } from '@market/shared/errors';
import { v7 as uuidv7 } from 'uuid';
import { ChargeExpired } from '../domain/errors';
import { findEscrow, lockOrderCharges } from '../persistence/escrow-repository';
import { writeLedger } from '../persistence/ledger-repository';
import { findRenewalCharge, recordRenewalCharge, type RenewalChargeRow } from '../persistence/renewal-charge-repository';
import type { WalletDeps } from './deps';
import { planEscrowPayment } from './escrow-payment';
import { paidFromBalance } from './paid-from-balance';

type RenewalChargeBody = InternalInput<typeof chargeContract>['body'];

export function toRenewalChargeView(row: RenewalChargeRow) {
  return {
    order_id: row.order_id,
    renewal_id: row.renewal_id,
    payment_id: row.payment_id,
    renter_id: row.renter_id,
    amount: Number(row.amount),
    charged_at: row.charged_at.toISOString(),
  };
}

/**
 * Orders renews an order: the extra rent moves from the renter's available balance into the escrow
 * the order's first charge opened, and the escrow's amount grows by it, with `payment.succeeded` in
 * the same transaction (ADR 0065). The renewal id is the idempotency key. The charge queues on the
 * order's charge lock (as charges and status reads do) and then locks the escrow record, which the
 * order's settlement locks too: a renewal charged before the order's end is paid out with it, one
 * arriving after finds the escrow no longer held and is refused.
 */
export async function chargeOrderRenewal(deps: WalletDeps, orderId: string, renewalId: string, body: RenewalChargeBody) {
  if (!isUuid(orderId) || !isUuid(renewalId)) throw new NotFound('order not found');
  return deps.db.transaction(async (tx) => {
    const now = await lockOrderCharges(tx, orderId);
    const existing = await findRenewalCharge(tx, renewalId);
    if (existing) {
      if (existing.order_id !== orderId || existing.renter_id !== body.renter_id || Number(existing.amount) !== body.amount) {
        throw new Conflict('this renewal was already charged with another order, renter or amount');
      }
      return toRenewalChargeView(existing);
    }
    if (now.getTime() > Date.parse(body.not_after)) throw new ChargeExpired();
    const [escrow] = await findEscrow(tx, orderId, true);
    if (!escrow) throw new NotFound('the order was never charged');
    if (escrow.status !== 'held') throw new InvalidState('the order has ended; it can no longer be renewed');
    if (escrow.renter_id !== body.renter_id) throw new Conflict('the order was charged to another renter');
    const paymentId = uuidv7();
    await writeLedger(tx, await planEscrowPayment(tx, { renterId: body.renter_id, orderId, amount: body.amount, paymentId }, now));
    const row = await recordRenewalCharge(tx, {
      renewal_id: renewalId,
      order_id: orderId,
      renter_id: body.renter_id,
      amount: String(body.amount),
      payment_id: paymentId,
      charged_at: now,
    });
    await deps.events.publishAll(tx, [paidFromBalance({ paymentId, renterId: body.renter_id, amount: body.amount, orderId, at: now })]);
    return toRenewalChargeView(row);
  });
}

/**
 * Whether a renewal was charged, answered after any charge of its order still running has ended,
 * with the database time of the answer: a renewal whose `not_after` is before `as_of` and that is
 * not here now can never land.
 */
export async function readRenewalChargeStatus(deps: WalletDeps, orderId: string, renewalId: string) {
  if (!isUuid(orderId) || !isUuid(renewalId)) throw new NotFound('renewal not found');
  return deps.db.transaction(async (tx) => {
    const asOf = await lockOrderCharges(tx, orderId);
    const row = await findRenewalCharge(tx, renewalId);
    const charged = row !== null && row.order_id === orderId;
    return {
      renewal_id: renewalId,
      status: charged ? ('charged' as const) : ('not_charged' as const),
      charge: charged ? toRenewalChargeView(row) : null,
      as_of: asOf.toISOString(),
    };
  });
}
