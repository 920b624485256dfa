import { type Tx } from '@market/shared/db';
import { PermanentEventFailure, type DomainEvent, type EventWriter } from '@market/shared/events';
import { type Logger } from '@market/shared/logging';
import { orderEscrow, platformRevenue, userAvailable, type AccountRef } from '../domain/accounts';
import type { Transfer } from '../domain/ledger';
import { fullRefund, payoutsFor, UnsettleableOrder, type Payout } from '../domain/settlement';
import { escrowEnd, findEscrow, lockEscrowForEnd, type EscrowRow } from '../persistence/escrow-repository';
import { planTransfers, withLedgerWrite } from '../persistence/ledger-repository';

type OrderEnd = DomainEvent<'order.completed'> | DomainEvent<'order.closed'> | DomainEvent<'order.cancelled'>;

export interface SettlementDeps {
  log: Logger;
  events: EventWriter;
}

function payoutsOf(end: OrderEnd, held: number): Payout[] {
  if (end.type === 'order.cancelled') return fullRefund(held);
  return payoutsFor(held, end.data);
}

/** The overtime rent among what the owner and the platform were paid (ADR 0071): told to the parties when there was any. */
function overtimeFeeOf(end: OrderEnd): number {
  return end.type === 'order.cancelled' ? 0 : (end.data.overtime_fee ?? 0);
}

/**
 * Pays an ending order's escrow out: on completion to owner income, platform fee and the renter's
 * refund exactly as the checkout breakdown says; on cancellation all back to the renter; on close per
 * the decision's figures. Runs in the inbox transaction, so a redelivered event changes nothing; the
 * escrow record is locked, so a charge racing with the end either lands first (and is refunded) or
 * finds the order ended (and is refused). Figures that do not add up to the escrow are refused at
 * once (parked in the DLQ for an operator) and no money moves. When money moved, `wallet.settled`
 * says how much went to whom, in the same transaction.
 */
export async function settleOrderEscrow(deps: SettlementDeps, tx: Tx, end: OrderEnd) {
  try {
    await payOut(deps, tx, end);
  } catch (err) {
    if (err instanceof UnsettleableOrder) throw new PermanentEventFailure(`order ${end.data.order_id} not settled: ${err.message}`);
    throw err;
  }
}

async function payOut({ log, events }: SettlementDeps, tx: Tx, end: OrderEnd) {
  const order = end.data;
  const now = new Date();
  let row: EscrowRow;
  if (end.type === 'order.completed') {
    const [found] = await findEscrow(tx, order.order_id, true);
    if (!found || found.status === 'void') throw new UnsettleableOrder(`order ${order.order_id} completed but the wallet never charged it`);
    row = found;
  } else {
    const locked = await lockEscrowForEnd(tx, order, end.type, now);
    if (locked.voided) {
      log.info({ order_id: order.order_id, event: end.type }, 'order ended before any charge; nothing to pay out');
      return;
    }
    row = locked.row;
  }
  if (row.status !== 'held') {
    log.warn({ order_id: order.order_id, event: end.type, status: row.status, ended_by: row.end_event }, 'escrow already paid out; nothing to do');
    return;
  }
  if (row.renter_id !== order.renter_id || row.owner_id !== order.owner_id) {
    throw new UnsettleableOrder(`order ${order.order_id} names other parties than the ones charged`);
  }
  const held = Number(row.amount);
  const payouts = payoutsOf(end, held);
  const target: Record<Payout['to'], AccountRef> = {
    owner: userAvailable(row.owner_id),
    platform: platformRevenue(row.order_id),
    renter: userAvailable(row.renter_id),
  };
  const transfers: Transfer[] = payouts.map((p) => ({
    from: orderEscrow(row.order_id),
    to: target[p.to],
    amount: p.amount,
    bizType: p.bizType,
    orderId: row.order_id,
    paymentId: row.payment_id,
  }));
  const write = await planTransfers(tx, transfers, now);
  const refundedOnly = payouts.every((p) => p.to === 'renter');
  const outcome = refundedOnly ? 'refunded' : 'settled';
  const paidTo = (to: Payout['to']) => payouts.filter((p) => p.to === to).reduce((sum, p) => sum + p.amount, 0);
  // the escrow's end, its event and the payouts in one statement (ADR 0077, 0084)
  const ended = await events.publishAllWith(tx, withLedgerWrite(escrowEnd(row.order_id, outcome, end.type, now), write), [
    {
      type: 'wallet.settled',
      data: {
        order_id: row.order_id,
        renter_id: row.renter_id,
        owner_id: row.owner_id,
        listing_id: order.listing_id,
        listing_title: order.listing_title,
        ended_by: end.type,
        outcome,
        released: held,
        owner_income: paidTo('owner'),
        platform_fee: paidTo('platform'),
        refund: paidTo('renter'),
        ...(overtimeFeeOf(end) > 0 ? { overtime_fee: overtimeFeeOf(end) } : {}),
        settled_at: now.toISOString(),
      },
    },
  ]);
  // The record was locked and read held above, so its end answers it. Were it not, nothing was
  // written: the event is not taken as handled, and is tried again.
  if (ended.length === 0) throw new Error(`order ${row.order_id}'s escrow was no longer held at its end; nothing paid out`);
}
