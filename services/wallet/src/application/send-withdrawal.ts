import { findWithdrawal, claimDueWithdrawals, claimWithdrawal, markSent, type WithdrawalRow } from '../persistence/withdrawal-repository';
import { openPayee } from '../persistence/sealed-payee';
import type { WalletDeps } from './deps';
import { moveWithdrawal } from './move-withdrawal';
import type { PayoutOutcome } from './ports';

/** Applies a final answer of the provider under the withdrawal's lock; an answer for a withdrawal already final changes nothing. */
async function applyOutcome(deps: WalletDeps, id: string, outcome: PayoutOutcome): Promise<void> {
  if (outcome.outcome !== 'paid' && outcome.outcome !== 'failed') return;
  await deps.db.transaction(async (tx) => {
    const row = await findWithdrawal(tx, id, true);
    if (!row || row.status !== 'processing') return;
    if (outcome.outcome === 'paid') {
      await moveWithdrawal(deps, tx, row, 'transfer_succeeded', { paid_at: outcome.paidAt, provider_order_id: outcome.providerOrderId }, null);
    } else {
      deps.log.warn({ withdrawal_id: id, reason: outcome.reason }, 'withdrawal transfer refused by the provider; hold released');
      await moveWithdrawal(deps, tx, row, 'transfer_failed', { reason: outcome.reason }, null);
    }
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
  const transfer = { withdrawalId: row.id, amount: Number(row.amount), payeeAccount: payee.account, payeeName: payee.name };
  if (row.sent_at === null && (await markSent(deps.db, row.id, new Date()))) {
    await applyOutcome(deps, row.id, await payouts.send(transfer));
    return;
  }
  const known = await payouts.query(row.id);
  if (known.outcome === 'not_found') {
    await applyOutcome(deps, row.id, await payouts.send(transfer));
    return;
  }
  await applyOutcome(deps, row.id, known);
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
