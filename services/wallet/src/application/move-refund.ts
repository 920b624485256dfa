import type { Identity } from '@market/shared/auth';
import type { Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { InsufficientBalance } from '../domain/errors';
import { InsufficientFunds } from '../domain/ledger';
import type { HoldTransfer } from '../domain/plan-withdrawal-move';
import { planRefundMove, type RefundEffect, type RefundMove, type RefundPlan } from '../domain/plan-refund-move';
import { refundHoldAccounts } from '../domain/refund';
import { recordTransfers } from '../persistence/ledger-repository';
import { findRefund, updateRefund, type RefundRow } from '../persistence/refund-repository';
import type { WalletDeps } from './deps';
import { MoneyMoves } from './money-moves';
import { toRefundView } from './refund-view';

async function moveHold(tx: Tx, row: RefundRow, hold: HoldTransfer, now: Date) {
  const amount = Number(row.amount);
  const transfer = { ...refundHoldAccounts(row, hold), amount, orderId: null, paymentId: row.payment_id, refundId: row.id };
  try {
    await recordTransfers(tx, [transfer], now);
  } catch (err) {
    // only taking the amount from the user's balance can find it short; the hold always holds the amount
    if (err instanceof InsufficientFunds && hold === 'take') throw new InsufficientBalance(err.balance, amount, 'refund');
    throw err;
  }
}

/**
 * Carries out a plan's effects for `row` as it now stands, in the caller's transaction: the hold
 * moves, the event and the audit entry (in `audited`'s name) are written. Sending the refund is
 * the caller's, after the commit.
 */
export async function carryOutRefundEffects(deps: WalletDeps, tx: Tx, row: RefundRow, effects: RefundEffect[], audited: Identity | null, now: Date) {
  for (const effect of effects) {
    if (effect.kind === 'hold') await moveHold(tx, row, effect.transfer, now);
    else if (effect.kind === 'audit') {
      const detail = { ...effect.detail, kind: row.kind, payment_id: row.payment_id, provider: row.provider };
      await recordAudit(deps.events, tx, audited, { action: effect.action, biz_type: 'refund', biz_id: row.id, detail });
    } else if (effect.kind === 'event') await deps.events.publish(tx, effect.type, toRefundView(row));
  }
}

/** Refunds as the money-move steps move them (application/money-moves). */
export const REFUND_MOVES = new MoneyMoves<RefundRow, RefundMove, RefundPlan>({
  noun: 'refund',
  find: findRefund,
  plan: planRefundMove,
  update: updateRefund,
  carryOut: carryOutRefundEffects,
  sendEffect: 'send_refund',
});
