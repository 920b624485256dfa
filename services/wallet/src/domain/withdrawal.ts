import type { WithdrawalStatus, z } from '@market/contracts';
import { WithdrawalBelowMinimum, WithdrawalDailyLimit } from './errors';

export type WithdrawalState = z.infer<typeof WithdrawalStatus>;

/** What moves a withdrawal: the requester, the back office, or the provider's answer. */
export type WithdrawalAction = 'approve' | 'auto_approve' | 'reject' | 'cancel' | 'transfer_succeeded' | 'transfer_failed';

/** Where the held amount goes on a move: out to the provider, back to the user, or stays held. */
export type HoldMove = 'keep' | 'pay_out' | 'release';

/**
 * The withdrawal state table (ADR 0032). Every row not listed is refused; `paid`, `failed`,
 * `rejected` and `cancelled` are final and nothing moves them.
 */
export const WITHDRAWAL_MOVES: ReadonlyArray<{ from: WithdrawalState; on: WithdrawalAction; to: WithdrawalState; hold: HoldMove }> = [
  { from: 'pending_review', on: 'approve', to: 'processing', hold: 'keep' },
  { from: 'pending_review', on: 'auto_approve', to: 'processing', hold: 'keep' },
  { from: 'pending_review', on: 'reject', to: 'rejected', hold: 'release' },
  { from: 'pending_review', on: 'cancel', to: 'cancelled', hold: 'release' },
  { from: 'processing', on: 'transfer_succeeded', to: 'paid', hold: 'pay_out' },
  { from: 'processing', on: 'transfer_failed', to: 'failed', hold: 'release' },
];

export function withdrawalMove(from: WithdrawalState, on: WithdrawalAction) {
  return WITHDRAWAL_MOVES.find((m) => m.from === from && m.on === on) ?? null;
}

export interface WithdrawalLimits {
  minAmount: number;
  dailyLimit: number;
  autoApproveBelow: number;
}

/** Why an amount cannot be withdrawn today given what was already requested; null when it can. */
export function withdrawalLimitError(amount: number, requestedToday: number, limits: WithdrawalLimits): WithdrawalBelowMinimum | WithdrawalDailyLimit | null {
  if (amount < limits.minAmount) return new WithdrawalBelowMinimum(limits.minAmount);
  if (requestedToday + amount > limits.dailyLimit) return new WithdrawalDailyLimit(limits.dailyLimit, requestedToday);
  return null;
}

export const autoApproved = (amount: number, limits: WithdrawalLimits) => amount < limits.autoApproveBelow;

/** A payee's real name as views show it: the family name and a star per other character. */
export function maskPayeeName(name: string): string {
  const chars = [...name];
  return chars[0]! + '*'.repeat(Math.max(1, chars.length - 1));
}

/** A payee account as views show it: the first three and last two characters. */
export function maskPayeeAccount(account: string): string {
  if (account.length <= 5) return `${account.slice(0, 1)}***`;
  return `${account.slice(0, 3)}****${account.slice(-2)}`;
}
