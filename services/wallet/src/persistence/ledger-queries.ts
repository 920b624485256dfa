import { type KeysetOrder, type KeysetPageResult, type Queryable } from '@market/shared/db';
import type { BizType } from '../domain/ledger';
import { filteredPage, type PageRequest } from './filtered-page';

export interface EntryRow {
  seq: string;
  id: string;
  user_id: string;
  order_id: string | null;
  biz_type: BizType;
  amount: string;
  balance_after: string;
  created_at: Date;
}

const ENTRY_COLUMNS = 'seq, id, user_id, order_id, biz_type, amount, balance_after, created_at';

export interface EntryQuery extends PageRequest {
  userId?: string;
  orderId?: string;
  bizType?: BizType;
}

/** Entries in the order they were written, newest first: the sequence settles entries of one instant. */
const NEWEST_WRITTEN_FIRST: KeysetOrder = { keys: [{ column: 'seq', type: 'bigint' }], direction: 'desc' };

/** One page of user-facing entries, newest first. */
export function queryEntries(db: Queryable, q: EntryQuery): Promise<KeysetPageResult<EntryRow>> {
  const equal = { user_id: q.userId, order_id: q.orderId, biz_type: q.bizType };
  return filteredPage<EntryRow>(db, `SELECT ${ENTRY_COLUMNS} FROM entries`, equal, { ...q, orderBy: NEWEST_WRITTEN_FIRST, always: 'user_id IS NOT NULL' });
}

/** Every user-facing entry of one order, oldest first (an order has a handful: payment, payouts). */
export async function entriesOfOrder(db: Queryable, orderId: string): Promise<EntryRow[]> {
  return db.query(
    `SELECT ${ENTRY_COLUMNS} FROM entries
     WHERE order_id = $1 AND user_id IS NOT NULL ORDER BY seq`,
    [orderId],
  );
}
