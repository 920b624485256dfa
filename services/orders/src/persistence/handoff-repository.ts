import type { SealedColumn } from '@market/shared/crypto';
import type { Queryable, Tx } from '@market/shared/db';

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

export async function insertHandoffRecord(tx: Tx, record: HandoffRecordRow): Promise<HandoffRecordRow> {
  const rows: HandoffRecordRow[] = await tx.query(
    `INSERT INTO handoff_records (id, order_id, author_id, author_role, content_sealed, attachment_keys, by_system, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [
      record.id,
      record.order_id,
      record.author_id,
      record.author_role,
      record.content_sealed,
      record.attachment_keys,
      record.by_system,
      record.created_at,
    ],
  );
  return rows[0]!;
}

export async function handoffRecordsOf(db: Queryable, orderId: string): Promise<HandoffRecordRow[]> {
  return db.query(`SELECT * FROM handoff_records WHERE order_id = $1 ORDER BY created_at, id`, [orderId]);
}
