import type { WithdrawalActor, WithdrawalMove } from '../domain/plan-withdrawal-move';
import { nextTransferCheck } from '../domain/withdrawal';
import { claimDueWithdrawals, claimWithdrawal, markSent, type WithdrawalRow } from '../persistence/withdrawal-repository';
import { openPayee } from '../persistence/sealed-payee';
import type { WalletDeps } from './deps';
import { WITHDRAWAL_MOVES } from './move-withdrawal';
import type { PayoutOutcome } from './ports';
import { lookAtDue, lookNow, type ProviderLooks } from './provider-looks';

/** The payout provider answering about a transfer. */
const PROVIDER: WithdrawalActor = { kind: 'provider' };

/**
 * The provider's answer about the transfer of `row` (being sent, or paid and looked at for a
 * return) as a move of its withdrawal. An outcome still open is asked about again with backoff,
 * and the back office is alerted once when it stays open past the configured time.
 */
function moveOf(deps: WalletDeps, row: WithdrawalRow, answer: PayoutOutcome, now: Date): WithdrawalMove {
  const since = row.status === 'paid' ? (row.paid_at ?? now) : (row.sent_at ?? row.decided_at ?? now);
  const recheckAt = nextTransferCheck(since, now, deps.withdrawal.recheckMs, deps.withdrawal.recheckMaxMs);
  const alert = row.status === 'processing' && row.unknown_alerted_at === null && now.getTime() - since.getTime() >= deps.withdrawal.alertAfterMs;
  if (row.status === 'paid') {
    if (answer.outcome === 'reversed') return { name: 'transfer_reversed', reason: answer.reason };
    if (answer.outcome === 'unknown') return { name: 'transfer_unknown', recheckAt, alert: false };
    if (answer.outcome !== 'paid') deps.log.warn({ withdrawal_id: row.id, outcome: answer.outcome }, 'the provider does not confirm a paid withdrawal; left paid, for reconciliation');
    return { name: 'reversal_check_done' };
  }
  switch (answer.outcome) {
    case 'paid': {
      const after = deps.withdrawal.reversalCheckAfterMs;
      return { name: 'transfer_succeeded', paidAt: answer.paidAt, providerOrderId: answer.providerOrderId, reversalCheckAt: after === null ? null : new Date(now.getTime() + after) };
    }
    case 'failed':
      return { name: 'transfer_failed', reason: answer.reason };
    case 'unknown':
      return { name: 'transfer_unknown', recheckAt, alert };
    case 'awaiting_payee':
      return { name: 'transfer_awaiting_payee', confirmation: answer.confirmation, recheckAt, alert };
    case 'reversed':
      return { name: 'transfer_reversed', reason: answer.reason };
    case 'not_found':
      return { name: 'transfer_not_found' };
  }
}

/**
 * Applies the provider's answer under the withdrawal's lock; an answer for a withdrawal no longer
 * being sent changes nothing. True when the plan has the transfer sent (again), which the caller
 * does once the lock is released.
 */
export async function applyAnswer(deps: WalletDeps, id: string, answer: PayoutOutcome): Promise<boolean> {
  const logRefusal = (row: WithdrawalRow) => {
    if (answer.outcome === 'failed' || answer.outcome === 'reversed') {
      deps.log.warn({ withdrawal_id: id, outcome: answer.outcome, reason: answer.reason, was: row.status }, 'withdrawal transfer refused or returned by the provider');
    }
  };
  const moved = await WITHDRAWAL_MOVES.moveIfAllowed(deps, id, PROVIDER, (row) => moveOf(deps, row, answer, new Date()), logRefusal);
  return moved?.send ?? false;
}

/**
 * One look at a withdrawal being sent. The transfer is asked for only by the caller that first
 * records `sent_at`, and that record is committed before the request leaves: after a crash, a
 * timeout or a lost answer the outcome is asked about (query), never sent blind again. Only when the
 * provider says it never received the transfer is it sent again, under the same withdrawal id, which
 * the provider pays once at most.
 */
async function look(deps: WalletDeps, row: WithdrawalRow): Promise<void> {
  const payouts = deps.payouts.get(row.channel);
  if (!payouts) {
    deps.log.error({ withdrawal_id: row.id, channel: row.channel }, 'withdrawal of a channel no longer enabled; waits');
    return;
  }
  // a paid transfer is only asked about, for a return
  if (row.status === 'paid') {
    await applyAnswer(deps, row.id, await payouts.query(row.id));
    return;
  }
  const payee = openPayee(deps.secrets, row);
  const send = () => payouts.send({ withdrawalId: row.id, amount: Number(row.amount), payeeAccount: payee.account, payeeName: payee.name });
  const firstSend = row.sent_at === null && (await markSent(deps.db, row.id, new Date()));
  if (await applyAnswer(deps, row.id, firstSend ? await send() : await payouts.query(row.id))) await applyAnswer(deps, row.id, await send());
}

const WITHDRAWALS: ProviderLooks<WithdrawalRow> = { ...WITHDRAWAL_MOVES.kind, claim: claimWithdrawal, claimDue: claimDueWithdrawals, lookedAtIn: ['processing', 'paid'], look };

/** Sends (or asks about) one withdrawal now, if it is due; answers it as it then stands. */
export function sendWithdrawal(deps: WalletDeps, id: string): Promise<WithdrawalRow> {
  return lookNow(deps, WITHDRAWALS, id);
}

/**
 * The periodic job: every withdrawal being sent whose next look is due gets one, until each is paid
 * or failed; a paid one waiting for its look for a return gets that look.
 */
export function resolveDueWithdrawals(deps: WalletDeps, now = new Date()): Promise<number> {
  return lookAtDue(deps, WITHDRAWALS, now);
}
