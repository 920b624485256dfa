import type { WithdrawalRow } from '../persistence/withdrawal-repository';
import { isoTimes } from './iso-times';

/** A withdrawal as events announce it: the payee masked (as stored beside its sealed form), money in fen, times as ISO strings. */
export function withdrawalFacts(row: WithdrawalRow) {
  const { id, user_id, channel, payee_account_masked, payee_name_masked, status, reason } = row;
  const times = isoTimes(row, ['created_at', 'decided_at', 'paid_at', 'finished_at']);
  return { id, user_id, amount: Number(row.amount), channel, payee_account_masked, payee_name_masked, status, reason, ...times };
}

/**
 * A withdrawal as the API shows it. The payee's confirmation (WeChat's `package_info`) is the
 * owner's, to open WeChat's confirm page with, and shown only on the owner's own views while it is wanted.
 */
export function toWithdrawalView(row: WithdrawalRow, audience: 'owner' | 'others' = 'others') {
  const confirming = audience === 'owner' && row.status === 'processing' && row.payee_confirmation !== null;
  return { ...withdrawalFacts(row), payee_confirmation: confirming ? { channel: row.channel, package_info: row.payee_confirmation! } : null };
}
