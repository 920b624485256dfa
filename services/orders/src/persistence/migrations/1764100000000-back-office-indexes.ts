import { sqlMigration } from '@market/shared/db';

/** The back office lists all orders newest first, and reads an order's disputes. */
export const BackOfficeIndexes1764100000000 = sqlMigration(
  'BackOfficeIndexes1764100000000',
  [
    `CREATE INDEX orders_recent ON orders (created_at DESC, id DESC)`,
    `CREATE INDEX disputes_by_order ON disputes (order_id, created_at DESC)`,
  ],
  [`DROP INDEX disputes_by_order`, `DROP INDEX orders_recent`],
);
