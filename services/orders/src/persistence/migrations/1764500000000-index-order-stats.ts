import { sqlMigration } from '@market/shared/db';

/** The dashboard counts orders by status and those created today; both read an index, not the table. */
export const IndexOrderStats1764500000000 = sqlMigration(
  'IndexOrderStats1764500000000',
  [`CREATE INDEX orders_by_status ON orders (status)`, `CREATE INDEX orders_created ON orders (created_at)`],
  [`DROP INDEX orders_created`, `DROP INDEX orders_by_status`],
);
