import { keysetPage, type KeysetOrder, type KeysetPageResult, type Queryable, sqlParams } from '@market/shared/db';
import type { BizType } from '../domain/ledger';

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

export interface EntryQuery {
  userId?: string;
  orderId?: string;
  bizType?: BizType;
  cursor: string | undefined;
  limit: number;
}

/** Entries in the order they were written, newest first: the sequence settles entries of one instant. */
const NEWEST_WRITTEN_FIRST: KeysetOrder = { keys: [{ column: 'seq', type: 'bigint' }], direction: 'desc' };

/** One page of user-facing entries, newest first. */
export async function queryEntries(db: Queryable, q: EntryQuery): Promise<KeysetPageResult<EntryRow>> {
  const where = ['user_id IS NOT NULL'];
  const { params, param } = sqlParams();
  if (q.userId) where.push(`user_id = ${param(q.userId)}`);
  if (q.orderId) where.push(`order_id = ${param(q.orderId)}`);
  if (q.bizType) where.push(`biz_type = ${param(q.bizType)}`);
  return keysetPage<EntryRow>(db, {
    query: `SELECT seq, id, user_id, order_id, biz_type, amount, balance_after, created_at FROM entries WHERE ${where.join(' AND ')}`,
    params,
    orderBy: NEWEST_WRITTEN_FIRST,
    limit: q.limit,
    cursor: q.cursor,
  });
}

/** Every user-facing entry of one order, oldest first (an order has a handful: payment, payouts). */
export async function entriesOfOrder(db: Queryable, orderId: string): Promise<EntryRow[]> {
  return db.query(
    `SELECT seq, id, user_id, order_id, biz_type, amount, balance_after, created_at FROM entries
     WHERE order_id = $1 AND user_id IS NOT NULL ORDER BY seq`,
    [orderId],
  );
}
