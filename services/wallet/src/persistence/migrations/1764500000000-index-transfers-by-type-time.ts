import { sqlMigration } from '@market/shared/db';

/** The dashboard sums transfers of some kinds over a recent window; with the amount included it never reads the table. */
export const IndexTransfersByTypeTime1764500000000 = sqlMigration(
  'IndexTransfersByTypeTime1764500000000',
  [`CREATE INDEX transfers_by_type_time ON transfers (biz_type, created_at) INCLUDE (amount)`],
  [`DROP INDEX transfers_by_type_time`],
);
