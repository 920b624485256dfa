import type { EntityManager, SealedColumn } from '@market/shared';
import type { UploadOutcome } from '../domain/open-upload';

export const OPEN_UPLOAD_RAW_SEALED: SealedColumn = { table: 'open_uploads', column: 'raw_sealed', idColumn: 'id' };

export interface OpenUploadRecord {
  id: string;
  received_at: Date;
  ip: string | null;
  uploader_name: string;
  upload_time: string;
  matched_admin_id: string | null;
  publisher_user_id: string | null;
  outcome: UploadOutcome;
  item_count: number;
  /** the body as received, sealed: it carries account passwords */
  raw_sealed: string;
  redacted: unknown;
  result: unknown;
}

export async function insertOpenUpload(manager: EntityManager, record: OpenUploadRecord) {
  await manager.query(
    `INSERT INTO open_uploads (id, received_at, ip, uploader_name, upload_time, matched_admin_id, publisher_user_id,
       outcome, item_count, raw_sealed, redacted, result)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      record.id,
      record.received_at,
      record.ip,
      record.uploader_name,
      record.upload_time,
      record.matched_admin_id,
      record.publisher_user_id,
      record.outcome,
      record.item_count,
      record.raw_sealed,
      JSON.stringify(record.redacted),
      JSON.stringify(record.result),
    ],
  );
}
