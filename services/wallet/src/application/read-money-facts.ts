import { type escrowMoneyFacts, type InternalInput } from '@market/contracts';
import { escrowMoneyAfter } from '../persistence/escrow-repository';
import { findRechargeDiscrepancies } from '../persistence/ledger-audit';
import type { WalletDeps } from './deps';

/** One page of escrow records with what went in and out, for money:verify (called by admin). */
export async function readEscrowMoneyFacts(deps: WalletDeps, query: InternalInput<typeof escrowMoneyFacts>['query']) {
  const rows = await escrowMoneyAfter(deps.db, query.after ?? null, query.limit);
  return {
    items: rows.map((row) => ({
      order_id: row.order_id,
      status: row.status,
      charged: Number(row.charged),
      charges: row.charges,
      to_owner: Number(row.to_owner),
      to_platform: Number(row.to_platform),
      to_renter: Number(row.to_renter),
      charged_at: row.charged_at?.toISOString() ?? null,
      ended_at: row.ended_at?.toISOString() ?? null,
    })),
    next_after: rows.length === query.limit ? rows[rows.length - 1]!.order_id : null,
  };
}

/** Recharges not credited exactly once by their amount, for money:verify. */
export async function readRechargeDiscrepancies(deps: WalletDeps) {
  const rows = await findRechargeDiscrepancies(deps.db);
  return {
    items: rows.map((row) => ({ payment_id: row.id, status: row.status, amount: Number(row.amount), credited: Number(row.credited), credits: row.credits })),
  };
}
