import type { Tx } from '@market/shared/db';
import { InvalidState } from '@market/shared/errors';
import { payoutClearing, userAvailable, withdrawalHold } from '../domain/accounts';
import type { Transfer } from '../domain/ledger';
import { withdrawalMove, type WithdrawalAction } from '../domain/withdrawal';
import { recordTransfers } from '../persistence/ledger-repository';
import { updateWithdrawal, type WithdrawalChange, type WithdrawalRow } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { toWithdrawalView } from './withdrawal-view';

function holdTransfers(row: WithdrawalRow, hold: 'pay_out' | 'release'): Transfer[] {
  const amount = Number(row.amount);
  const base = { amount, orderId: null, paymentId: null, withdrawalId: row.id };
  return hold === 'pay_out'
    ? [{ ...base, from: withdrawalHold(row.id), to: payoutClearing(row.channel), bizType: 'withdrawal_payout' }]
    : [{ ...base, from: withdrawalHold(row.id), to: userAvailable(row.user_id), bizType: 'withdrawal_refund' }];
}

/**
 * Moves a withdrawal the caller holds locked by the state table: the hold moves with it (paid out
 * or given back) and the move's event is written, all in the caller's transaction. A move the table
 * does not have is 409.
 */
export async function moveWithdrawal(deps: WalletDeps, tx: Tx, row: WithdrawalRow, action: WithdrawalAction, change: WithdrawalChange, actorId: string | null) {
  const move = withdrawalMove(row.status, action);
  if (!move) throw new InvalidState(`the withdrawal is ${row.status}; it cannot be ${action.replace('_', ' ')}d`);
  const now = new Date();
  if (move.hold !== 'keep') await recordTransfers(tx, holdTransfers(row, move.hold), now);
  const final = move.to !== 'processing';
  const moved = await updateWithdrawal(tx, row.id, row.status, { ...change, status: move.to, ...(final ? { finished_at: now, next_check_at: null } : {}) });
  const view = toWithdrawalView(moved);
  if (move.to === 'processing') await deps.events.publish(tx, 'withdrawal.approved', { ...view, approved_by: actorId });
  else if (move.to === 'rejected') await deps.events.publish(tx, 'withdrawal.rejected', { ...view, rejected_by: actorId! });
  else if (move.to === 'paid') await deps.events.publish(tx, 'withdrawal.paid', view);
  else if (move.to === 'failed') await deps.events.publish(tx, 'withdrawal.failed', view);
  return moved;
}
