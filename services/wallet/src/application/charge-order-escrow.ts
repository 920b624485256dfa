import { type chargeOrderEscrow as chargeContract, type InternalInput } from '@market/contracts';
import { isUuid } from '@market/shared/db';
import { Conflict, InvalidState, NotFound } from '@market/shared/errors';
import { v7 as uuidv7 } from 'uuid';
import { ChargeExpired } from '../domain/errors';
import { escrowClaim, findEscrow, lockOrderCharges, type EscrowRow } from '../persistence/escrow-repository';
import { withLedgerWrite } from '../persistence/ledger-repository';
import { toChargeView } from './charge-view';
import { planEscrowPayment } from './escrow-payment';
import type { WalletDeps } from './deps';
import { paidFromBalance } from './paid-from-balance';

type ChargeBody = InternalInput<typeof chargeContract>['body'];

/** A repeated charge of one order answers the first charge and moves nothing. */
function repeatedCharge(existing: EscrowRow, body: ChargeBody) {
  if (existing.status === 'void') throw new InvalidState('the order has ended; it can no longer be paid');
  if (existing.renter_id !== body.renter_id || existing.owner_id !== body.owner_id || Number(existing.amount) !== body.amount) {
    throw new Conflict('this order was already charged with another renter, owner or amount');
  }
  return toChargeView(existing);
}

/**
 * Orders pays an order: rent + deposit move from the renter's available balance into the order's
 * escrow, with `payment.succeeded` in the same transaction. The order id is the idempotency key, so
 * orders may repeat the call after a crash; twenty concurrent calls queue on the order's charge lock
 * and charge once. A new charge met after its `not_after` is refused, so once the charge-status
 * read has seen that time pass, the answer "not charged" is final (ADR 0028).
 */
export async function chargeOrderEscrow(deps: WalletDeps, orderId: string, body: ChargeBody) {
  if (!isUuid(orderId)) throw new NotFound('order not found');
  return deps.db.transaction(async (tx) => {
    const now = await lockOrderCharges(tx, orderId);
    const [existing] = await findEscrow(tx, orderId);
    if (existing) return repeatedCharge(existing, body);
    if (body.not_after !== undefined && now.getTime() > Date.parse(body.not_after)) {
      throw new ChargeExpired();
    }
    const paymentId = uuidv7();
    const write = await planEscrowPayment(tx, { renterId: body.renter_id, orderId, amount: body.amount, paymentId }, now);
    // the charge's record, its payment.succeeded and the money's move in one statement (ADR 0077,
    // 0084): the event and the move are written only when the record is
    const [claimed] = await deps.events.publishAllWith<EscrowRow>(
      tx,
      withLedgerWrite(
        escrowClaim({ order_id: orderId, renter_id: body.renter_id, owner_id: body.owner_id, amount: body.amount, payment_id: paymentId, charged_at: now }),
        write,
      ),
      [paidFromBalance({ paymentId, renterId: body.renter_id, amount: body.amount, orderId, at: now })],
    );
    if (!claimed) {
      // an order ending in the same instant wrote its void record first
      const [ended] = await findEscrow(tx, orderId);
      return repeatedCharge(ended!, body);
    }
    return toChargeView(claimed);
  });
}

