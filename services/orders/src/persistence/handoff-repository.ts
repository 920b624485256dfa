import type { SealedColumn } from '@market/shared/crypto';
import type { Queryable } from '@market/shared/db';
import type { RowsStatement } from '@market/shared/events';

export const HANDOFF_CONTENT_SEALED: SealedColumn = { table: 'handoff_records', column: 'content_sealed', idColumn: 'id' };

export interface HandoffRecordRow {
  id: string;
  order_id: string;
  author_id: string;
  author_role: 'owner' | 'renter';
  /** SecretBox envelope of the content; the plaintext never reaches this table */
  content_sealed: string;
  attachment_keys: string[];
  by_system: boolean;
  created_at: Date;
}

/**
 * `change` (a move of the order) with the handoff record written in the same statement: the
 * record is written only when the change answers the order, as one row (ADR 0083).
 */
export function withHandoffRecord(change: RowsStatement, record: HandoffRecordRow): RowsStatement {
  const n = change.params.length;
  return {
    text: change.text,
    params: [
      ...change.params,
      record.id,
      record.order_id,
      record.author_id,
      record.author_role,
      record.content_sealed,
      record.attachment_keys,
      record.by_system,
      record.created_at,
    ],
    alongside: `recorded AS (
       INSERT INTO handoff_records (id, order_id, author_id, author_role, content_sealed, attachment_keys, by_system, created_at)
       SELECT $${n + 1}::uuid, $${n + 2}::uuid, $${n + 3}::uuid, $${n + 4}::text, $${n + 5}::text, $${n + 6}::text[], $${n + 7}::boolean, $${n + 8}::timestamptz FROM changed
     )`,
  };
}

export async function handoffRecordsOf(db: Queryable, orderId: string): Promise<HandoffRecordRow[]> {
  return db.query(`SELECT * FROM handoff_records WHERE order_id = $1 ORDER BY created_at, id`, [orderId]);
}
