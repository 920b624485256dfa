import type { LedgerBizType, z } from '@market/contracts';
import { TransientRefusal } from '@market/shared/errors';
import { mayGoNegative, type AccountRef } from './accounts';
import type { WalletFaultCode } from './errors';

export type BizType = z.infer<typeof LedgerBizType>;

export interface Transfer {
  from: AccountRef;
  to: AccountRef;
  amount: number;
  bizType: BizType;
  orderId: string | null;
  paymentId: string | null;
  withdrawalId?: string | null;
  refundId?: string | null;
}

export interface Posting {
  transferIndex: number;
  account: AccountRef;
  amount: number;
  balanceAfter: number;
}

/**
 * An account would go below zero; for a user's available balance that is 409 INSUFFICIENT_BALANCE.
 * Transient: a recharge or a release can change the balance.
 */
export class InsufficientFunds extends TransientRefusal<WalletFaultCode> {
  constructor(
    readonly account: AccountRef,
    readonly balance: number,
    readonly needed: number,
  ) {
    super('LEDGER_OVERDRAWN', `account ${account.key} holds ${balance}, needs ${needed}`);
  }
}

/**
 * Applies transfers in order to the current balances: two postings per transfer, debit then credit,
 * each with the balance it leaves. Pure; the caller has read `balances` under lock.
 */
export function postTransfers(balances: Map<string, number>, transfers: Transfer[]): Posting[] {
  const next = new Map(balances);
  const postings: Posting[] = [];
  transfers.forEach((t, transferIndex) => {
    if (!Number.isSafeInteger(t.amount) || t.amount <= 0) throw new Error(`transfer amount must be a positive integer, got ${t.amount}`);
    if (t.from.key === t.to.key) throw new Error(`transfer from ${t.from.key} to itself`);
    const fromBalance = next.get(t.from.key) ?? 0;
    if (!mayGoNegative(t.from.kind) && fromBalance < t.amount) throw new InsufficientFunds(t.from, fromBalance, t.amount);
    const toBalance = next.get(t.to.key) ?? 0;
    next.set(t.from.key, fromBalance - t.amount);
    next.set(t.to.key, toBalance + t.amount);
    postings.push({ transferIndex, account: t.from, amount: -t.amount, balanceAfter: fromBalance - t.amount });
    postings.push({ transferIndex, account: t.to, amount: t.amount, balanceAfter: toBalance + t.amount });
  });
  return postings;
}
