import { escrowMoneyFacts, ledgerVerification, orderMoneyFacts, rechargeDiscrepancies, type LedgerVerification, type z } from '@market/contracts';
import type { InternalClient } from '@market/shared/http';
import { reconcileMoney, type EscrowMoney, type MoneyMismatch, type OrderMoney } from '../domain/money-reconciliation';

async function allPages<T>(page: (after: string | undefined) => Promise<{ items: T[]; next_after: string | null }>): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (;;) {
    const got = await page(after);
    items.push(...got.items);
    if (got.next_after === null) return items;
    after = got.next_after;
  }
}

/** What money:verify finds: the disagreements between orders and the wallet, and the wallet's own ledger checks. */
export interface MoneyVerification {
  mismatches: MoneyMismatch[];
  ledger: z.infer<typeof LedgerVerification>;
}

/** Whether money:verify found anything at all. */
export function foundNothing(found: MoneyVerification): boolean {
  return found.mismatches.length === 0 && found.ledger.differences.length === 0;
}

/**
 * money:verify: reads every order's money facts from orders, then every escrow and the recharge
 * discrepancies from the wallet, each through its internal API (never another service's tables),
 * and answers every disagreement; then the wallet's double-entry checks of its ledger, the ones
 * `npm run wallet:verify` prints (one check everywhere, ADR 0052). Orders first: a charge precedes
 * its payment and a payout follows its order's end, so what changes while it reads is never reported.
 */
export async function verifyMoney(internal: InternalClient, settlementDeadlineMs: number): Promise<MoneyVerification> {
  const ordersReadFrom = new Date();
  const orders = await allPages<OrderMoney>((after) => internal.call(orderMoneyFacts, { query: { limit: 500, ...(after ? { after } : {}) } }));
  const escrows = await allPages<EscrowMoney>((after) => internal.call(escrowMoneyFacts, { query: { limit: 500, ...(after ? { after } : {}) } }));
  const { items: recharges } = await internal.call(rechargeDiscrepancies);
  const mismatches = reconcileMoney({ orders, escrows, recharges, ordersReadFrom }, new Date(), settlementDeadlineMs);
  const ledger = await internal.call(ledgerVerification);
  return { mismatches, ledger };
}
