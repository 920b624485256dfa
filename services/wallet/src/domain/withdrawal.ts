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

/**
 * When to ask again about a transfer whose outcome has been unknown since `since`: after as long
 * again as it has been unknown, at least `minMs` and at most `maxMs`, so the looks come 1, 2, 4, 8 …
 * minutes after the send and then hourly (ADR 0049): quick while an answer is likely, cheap later.
 */
export function nextTransferCheck(since: Date, now: Date, minMs: number, maxMs: number): Date {
  const unknownFor = Math.max(0, now.getTime() - since.getTime());
  return new Date(now.getTime() + Math.min(maxMs, Math.max(minMs, unknownFor)));
}
