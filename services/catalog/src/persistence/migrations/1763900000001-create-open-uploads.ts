import { sqlMigration } from '@market/shared/db';

/** Every open upload, for operators: who sent what, from where, and what became of it. */
export const CreateOpenUploads1763900000001 = sqlMigration(
  'CreateOpenUploads1763900000001',
  [
    `
      CREATE TABLE open_uploads (
        id uuid PRIMARY KEY,
        received_at timestamptz NOT NULL,
        ip text,
        uploader_name text NOT NULL,
        upload_time text NOT NULL,
        matched_admin_id uuid,
        publisher_user_id uuid,
        outcome text NOT NULL CHECK (outcome IN ('accepted', 'partial', 'rejected', 'unmatched')),
        item_count integer NOT NULL,
        raw_sealed text NOT NULL,
        redacted jsonb NOT NULL,
        result jsonb NOT NULL
      )`,
    `CREATE INDEX open_uploads_received ON open_uploads (received_at DESC)`,
    `CREATE INDEX open_uploads_uploader ON open_uploads (uploader_name, received_at DESC)`,
    `ALTER TABLE listings ADD CONSTRAINT listings_open_upload FOREIGN KEY (open_upload_id) REFERENCES open_uploads (id)`,
  ],
  [
    `ALTER TABLE listings DROP CONSTRAINT listings_open_upload`,
    `DROP TABLE open_uploads`,
  ],
);
