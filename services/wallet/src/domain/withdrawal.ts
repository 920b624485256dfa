import type { WithdrawalStatus, z } from '@market/contracts';
import { WithdrawalBelowMinimum, WithdrawalDailyLimit } from './errors';

export type WithdrawalState = z.infer<typeof WithdrawalStatus>;

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
