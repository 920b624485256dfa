import type { WithdrawalRow } from '../persistence/withdrawal-repository';

/** A withdrawal as events announce it: the payee masked (as stored beside its sealed form), money in fen, times as ISO strings. */
export function withdrawalFacts(row: WithdrawalRow) {
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

/**
 * A withdrawal as the API shows it. The payee's confirmation (WeChat's `package_info`) is the
 * owner's, to open WeChat's confirm page with, and shown only on the owner's own views while it is wanted.
 */
export function toWithdrawalView(row: WithdrawalRow, audience: 'owner' | 'others' = 'others') {
  const confirming = audience === 'owner' && row.status === 'processing' && row.payee_confirmation !== null;
  return { ...withdrawalFacts(row), payee_confirmation: confirming ? { channel: row.channel, package_info: row.payee_confirmation! } : null };
}
