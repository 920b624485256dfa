import type { Identity } from '@market/shared/auth';
import type { Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { payoutClearing, userAvailable, withdrawalHold } from '../domain/accounts';
import { InsufficientBalance } from '../domain/errors';
import { InsufficientFunds, type Transfer } from '../domain/ledger';
import { planWithdrawalMove, type HoldTransfer, type WithdrawalEffect, type WithdrawalMove, type WithdrawalPlan } from '../domain/plan-withdrawal-move';
import { recordTransfers } from '../persistence/ledger-repository';
import { findWithdrawal, updateWithdrawal, type WithdrawalRow } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { MoneyMoves } from './money-moves';
import { withdrawalFacts } from './withdrawal-view';

function holdTransfer(row: WithdrawalRow, hold: HoldTransfer): Transfer {
  const base = { amount: Number(row.amount), orderId: null, paymentId: null, withdrawalId: row.id };
  if (hold === 'take') return { ...base, from: userAvailable(row.user_id), to: withdrawalHold(row.id), bizType: 'withdrawal' };
  if (hold === 'pay_out') return { ...base, from: withdrawalHold(row.id), to: payoutClearing(row.channel), bizType: 'withdrawal_payout' };
  if (hold === 'return') return { ...base, from: payoutClearing(row.channel), to: userAvailable(row.user_id), bizType: 'withdrawal_reversal' };
  return { ...base, from: withdrawalHold(row.id), to: userAvailable(row.user_id), bizType: 'withdrawal_refund' };
}

async function moveHold(tx: Tx, row: WithdrawalRow, hold: HoldTransfer, now: Date) {
  try {
    await recordTransfers(tx, [holdTransfer(row, hold)], now);
  } catch (err) {
    // only taking the amount from the user's balance can find it short; the hold always holds the amount
    if (err instanceof InsufficientFunds && hold === 'take') throw new InsufficientBalance(err.balance, Number(row.amount), 'withdraw');
    throw err;
  }
}

/**
 * Tells the back office, once, that a transfer's outcome has stayed unknown: it is still asked
 * about, and finance may settle it on the provider's evidence (`POST /api/admin/withdrawals/{id}/resolve`).
 */
async function alertUnknownTransfer(deps: WalletDeps, tx: Tx, row: WithdrawalRow, now: Date) {
  const since = (row.sent_at ?? row.decided_at ?? row.created_at).toISOString();
  const detail = { withdrawal_id: row.id, channel: row.channel, amount: Number(row.amount), user_id: row.user_id, sent_at: since, awaiting_payee: row.payee_confirmation !== null };
  await deps.events.publish(tx, 'ops.alert', {
    alert: 'WITHDRAWAL_UNKNOWN',
    severity: 'warning',
    service: 'wallet',
    summary: `the ${row.channel} transfer of withdrawal ${row.id} (${Number(row.amount)} fen) has had no final outcome since ${since}; it is still asked about, finance may resolve it on the provider's evidence`,
    subject_type: 'withdrawal',
    subject_id: row.id,
    detail,
    raised_at: now.toISOString(),
  });
  await recordAudit(deps.events, tx, null, { action: 'withdrawal.unknown', biz_type: 'withdrawal', biz_id: row.id, detail, result: 'failure' });
}

/**
 * Carries out a plan's effects for `row` as it now stands, in the caller's transaction: the hold
 * moves, the event and the audit entry (in `audited`'s name) are written. Sending the transfer is
 * the caller's, after the commit.
 */
export async function carryOutWithdrawalEffects(deps: WalletDeps, tx: Tx, row: WithdrawalRow, effects: WithdrawalEffect[], audited: Identity | null, now: Date) {
  const view = withdrawalFacts(row);
  for (const effect of effects) {
    if (effect.kind === 'hold') await moveHold(tx, row, effect.transfer, now);
    else if (effect.kind === 'audit') await recordAudit(deps.events, tx, audited, { action: effect.action, biz_type: 'withdrawal', biz_id: row.id, detail: effect.detail });
    else if (effect.kind === 'alert') await alertUnknownTransfer(deps, tx, row, now);
    else if (effect.kind === 'event') {
      if (effect.type === 'withdrawal.approved') await deps.events.publish(tx, effect.type, { ...view, approved_by: effect.approvedBy });
      else if (effect.type === 'withdrawal.rejected') await deps.events.publish(tx, effect.type, { ...view, rejected_by: effect.rejectedBy });
      else await deps.events.publish(tx, effect.type, view);
    }
  }
}

/** Withdrawals as the money-move steps move them (application/money-moves). */
export const WITHDRAWAL_MOVES = new MoneyMoves<WithdrawalRow, WithdrawalMove, WithdrawalPlan>({
  noun: 'withdrawal',
  find: findWithdrawal,
  plan: planWithdrawalMove,
  update: updateWithdrawal,
  carryOut: carryOutWithdrawalEffects,
  sendEffect: 'send_transfer',
});
