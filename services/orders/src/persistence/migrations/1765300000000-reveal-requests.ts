import { sqlMigration } from '@market/shared/db';

/**
 * Reveals of handoff content that need a second admin (ADR 0056): who marked an order abnormal,
 * and the reveal requests another admin approves, each used by one reveal.
 */
export const RevealRequests1765300000000 = sqlMigration(
  'RevealRequests1765300000000',
  [
    `ALTER TABLE orders ADD COLUMN marked_abnormal_by uuid`,
    `
      CREATE TABLE reveal_requests (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders (id),
        requested_by uuid NOT NULL,
        reason text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'used')),
        approved_by uuid,
        approved_at timestamptz,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'pending') = (approved_by IS NULL)),
        CHECK (approved_by IS NULL OR approved_by <> requested_by)
      )`,
    `CREATE INDEX reveal_requests_order ON reveal_requests (order_id, created_at DESC)`,
  ],
  [`DROP TABLE reveal_requests`, `ALTER TABLE orders DROP COLUMN marked_abnormal_by`],
);
