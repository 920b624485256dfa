import { problems, type CursorPosition, type EntityManager } from '@market/shared';
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
  after: CursorPosition | null;
  limit: number;
}

/** One page, newest first (by insertion sequence), plus one row to know whether another follows. */
export async function queryEntries(manager: EntityManager, q: EntryQuery): Promise<EntryRow[]> {
  const where = ['user_id IS NOT NULL'];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (q.userId) where.push(`user_id = ${param(q.userId)}`);
  if (q.orderId) where.push(`order_id = ${param(q.orderId)}`);
  if (q.bizType) where.push(`biz_type = ${param(q.bizType)}`);
  if (q.after) {
    if (typeof q.after.v !== 'number' || !Number.isSafeInteger(q.after.v) || q.after.v < 0) {
      throw problems.validation([{ path: 'query.cursor', message: 'cursor is not valid for this list' }]);
    }
    where.push(`seq < ${param(q.after.v)}`);
  }
  return manager.query(
    `SELECT seq, id, user_id, order_id, biz_type, amount, balance_after, created_at FROM entries
     WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ${param(q.limit + 1)}`,
    params,
  );
}

export const entryPosition = (row: EntryRow): CursorPosition => ({ v: Number(row.seq), id: row.id });

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
