import type { WithdrawalRow } from '../persistence/withdrawal-repository';

/** A withdrawal as the contract shows it: the payee masked (as stored beside its sealed form), money in fen, times as ISO strings. */
export function toWithdrawalView(row: WithdrawalRow) {
  return {
    id: row.id,
    user_id: row.user_id,
    amount: Number(row.amount),
    channel: row.channel,
    payee_account_masked: row.payee_account_masked,
    payee_name_masked: row.payee_name_masked,
    status: row.status,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    decided_at: row.decided_at?.toISOString() ?? null,
    paid_at: row.paid_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}
