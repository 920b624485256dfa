import { sqlMigration } from '@market/shared/db';

export const CreateFiles1763900000000 = sqlMigration(
  'CreateFiles1763900000000',
  [
    `
      CREATE TABLE files (
        key text PRIMARY KEY,
        owner_id uuid NOT NULL,
        scene text NOT NULL CHECK (scene IN ('listing', 'handoff', 'dispute', 'realname', 'avatar')),
        content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png', 'image/webp', 'application/pdf')),
        size integer NOT NULL CHECK (size >= 0),
        sha256 char(64) NOT NULL,
        original_name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    `CREATE INDEX files_owner ON files (owner_id, created_at DESC)`,
    // Who besides the uploader may read a private file, and why (biz_type/biz_id: the order or dispute).
    `
      CREATE TABLE attachments (
        key text NOT NULL REFERENCES files (key) ON DELETE CASCADE,
        reader_id uuid NOT NULL,
        biz_type text NOT NULL,
        biz_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (key, reader_id, biz_type, biz_id)
      )`,
  ],
  [
    `DROP TABLE attachments`,
    `DROP TABLE files`,
  ],
);
