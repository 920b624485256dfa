import { DomainError } from '@market/shared/errors';
import { planWithdrawalMove, type WithdrawalActor, type WithdrawalMove } from '../domain/plan-withdrawal-move';
import { findWithdrawal, claimDueWithdrawals, claimWithdrawal, markSent, type WithdrawalRow } from '../persistence/withdrawal-repository';
import { openPayee } from '../persistence/sealed-payee';
import type { WalletDeps } from './deps';
import { moveWithdrawal } from './move-withdrawal';
import type { PayoutOutcome } from './ports';

/** The payout provider answering about a transfer. */
const PROVIDER: WithdrawalActor = { kind: 'provider' };

/** The provider's answer about a transfer, as a move of its withdrawal. */
function moveOf(answer: PayoutOutcome): WithdrawalMove {
  switch (answer.outcome) {
    case 'paid':
      return { name: 'transfer_succeeded', paidAt: answer.paidAt, providerOrderId: answer.providerOrderId };
    case 'failed':
      return { name: 'transfer_failed', reason: answer.reason };
    case 'unknown':
    case 'awaiting_payee':
    case 'reversed':
      return { name: 'transfer_unknown' };
    case 'not_found':
      return { name: 'transfer_not_found' };
  }
}

/**
 * Applies the provider's answer under the withdrawal's lock; an answer for a withdrawal no longer
 * being sent changes nothing. True when the plan has the transfer sent (again), which the caller
 * does once the lock is released.
 */
async function applyAnswer(deps: WalletDeps, id: string, answer: PayoutOutcome): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const row = await findWithdrawal(tx, id, true);
    if (!row) return false;
    const move = moveOf(answer);
    // a refusal here is a late answer for a withdrawal already final
    if (planWithdrawalMove(row, move, PROVIDER, new Date()) instanceof DomainError) return false;
    if (answer.outcome === 'failed') deps.log.warn({ withdrawal_id: id, reason: answer.reason }, 'withdrawal transfer refused by the provider; hold released');
    return (await moveWithdrawal(deps, tx, row, move, PROVIDER, null)).send;
  });
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
  const payee = openPayee(deps.secrets, row);
  const send = () => payouts.send({ withdrawalId: row.id, amount: Number(row.amount), payeeAccount: payee.account, payeeName: payee.name });
  const firstSend = row.sent_at === null && (await markSent(deps.db, row.id, new Date()));
  if (await applyAnswer(deps, row.id, firstSend ? await send() : await payouts.query(row.id))) await applyAnswer(deps, row.id, await send());
}

/** Sends (or asks about) one withdrawal now, if it is due; answers it as it then stands. */
export async function sendWithdrawal(deps: WalletDeps, id: string): Promise<WithdrawalRow> {
  const claimed = await claimWithdrawal(deps.db, id, new Date(), deps.withdrawal.recheckMs);
  if (claimed) {
    try {
      await look(deps, claimed);
    } catch (err) {
      deps.log.warn({ withdrawal_id: id, err: { message: (err as Error).message } }, 'withdrawal outcome not known yet; asked again later');
    }
  }
  return (await findWithdrawal(deps.db, id))!;
}

/** The periodic job: every withdrawal being sent whose next look is due gets one, until each is paid or failed. */
export async function resolveDueWithdrawals(deps: WalletDeps, now = new Date()): Promise<number> {
  const ids = await claimDueWithdrawals(deps.db, now, deps.withdrawal.recheckMs, 50);
  for (const id of ids) {
    const row = await findWithdrawal(deps.db, id);
    if (!row || row.status !== 'processing') continue;
    try {
      await look(deps, row);
    } catch (err) {
      deps.log.warn({ withdrawal_id: id, err: { message: (err as Error).message } }, 'withdrawal outcome not known yet; asked again later');
    }
  }
  return ids.length;
}
