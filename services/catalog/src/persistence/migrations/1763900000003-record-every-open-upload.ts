import { sqlMigration } from '@market/shared/db';

/**
 * Every delivery to the open upload is recorded, refused ones too (ADR 0013): what was answered
 * and why, how many bytes came, and a readable copy even of a body that is not JSON.
 */
export const RecordEveryOpenUpload1763900000003 = sqlMigration(
  'RecordEveryOpenUpload1763900000003',
  [
    `ALTER TABLE open_uploads DROP CONSTRAINT open_uploads_outcome_check`,
    `ALTER TABLE open_uploads ADD CONSTRAINT open_uploads_outcome_check
       CHECK (outcome IN ('accepted', 'partial', 'rejected', 'unmatched', 'refused'))`,
    `ALTER TABLE open_uploads
       ALTER COLUMN uploader_name DROP NOT NULL,
       ALTER COLUMN upload_time DROP NOT NULL,
       ALTER COLUMN redacted DROP NOT NULL,
       ALTER COLUMN result DROP NOT NULL,
       ADD COLUMN request_id text,
       ADD COLUMN status integer,
       ADD COLUMN code text,
       ADD COLUMN reason text,
       ADD COLUMN errors jsonb NOT NULL DEFAULT '[]',
       ADD COLUMN byte_count bigint NOT NULL DEFAULT 0,
       ADD COLUMN bytes_truncated boolean NOT NULL DEFAULT false,
       ADD COLUMN redacted_text text`,
    // Before this, only converted uploads (201) and unmatched ones (422, result holding the code) were recorded.
    `UPDATE open_uploads SET
       status = CASE outcome WHEN 'unmatched' THEN 422 ELSE 201 END,
       code = CASE outcome WHEN 'unmatched' THEN 'UPLOADER_NOT_MATCHED' END,
       result = CASE outcome WHEN 'unmatched' THEN NULL ELSE result END`,
    `ALTER TABLE open_uploads ALTER COLUMN status SET NOT NULL`,
    `DROP INDEX open_uploads_received`,
    `DROP INDEX open_uploads_uploader`,
    // The back office pages newest first, optionally by uploader or by outcome.
    `CREATE INDEX open_uploads_newest ON open_uploads (received_at DESC, id DESC)`,
    `CREATE INDEX open_uploads_by_uploader ON open_uploads (uploader_name, received_at DESC, id DESC)`,
    `CREATE INDEX open_uploads_by_outcome ON open_uploads (outcome, received_at DESC, id DESC)`,
  ],
  [
    `DROP INDEX open_uploads_by_outcome`,
    `DROP INDEX open_uploads_by_uploader`,
    `DROP INDEX open_uploads_newest`,
    `CREATE INDEX open_uploads_uploader ON open_uploads (uploader_name, received_at DESC)`,
    `CREATE INDEX open_uploads_received ON open_uploads (received_at DESC)`,
    `DELETE FROM open_uploads WHERE outcome = 'refused'`,
    `UPDATE open_uploads SET result = jsonb_build_object('code', code, 'listings', '[]'::jsonb, 'failed', '[]'::jsonb) WHERE result IS NULL`,
    `ALTER TABLE open_uploads
       DROP COLUMN redacted_text, DROP COLUMN bytes_truncated, DROP COLUMN byte_count, DROP COLUMN errors,
       DROP COLUMN reason, DROP COLUMN code, DROP COLUMN status, DROP COLUMN request_id`,
    `ALTER TABLE open_uploads DROP CONSTRAINT open_uploads_outcome_check`,
    `ALTER TABLE open_uploads ADD CONSTRAINT open_uploads_outcome_check CHECK (outcome IN ('accepted', 'partial', 'rejected', 'unmatched'))`,
  ],
);
