import { sqlMigration } from '@market/shared/db';

/**
 * The businesses (orders) whose read grants have ended: their attachments are deleted, and a grant
 * that arrives afterwards (a share racing the order's end) is not written (ADR 0056).
 */
export const RecordEndedGrants1765300000000 = sqlMigration(
  'RecordEndedGrants1765300000000',
  [
    `
      CREATE TABLE ended_grants (
        biz_type text NOT NULL,
        biz_id text NOT NULL,
        ended_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (biz_type, biz_id)
      )`,
    `CREATE INDEX attachments_biz ON attachments (biz_type, biz_id)`,
  ],
  [`DROP INDEX attachments_biz`, `DROP TABLE ended_grants`],
);
