import type { EntryRow } from '../persistence/ledger-queries';

/** A ledger entry as the contract shows it: money as integer fen, times as ISO strings. */
export function toEntryView(row: EntryRow) {
  return {
    id: row.id,
    user_id: row.user_id,
    order_id: row.order_id,
    biz_type: row.biz_type,
    amount: Number(row.amount),
    balance_after: Number(row.balance_after),
    created_at: row.created_at.toISOString(),
  };
}
