import { sqlMigration } from '@market/shared/db';

/** The end time the renter was last reminded of (ADR 0065): a renewal moves ends_at, and the new end gets its own reminder. */
export const EndReminders1767000000003 = sqlMigration(
  'EndReminders1767000000003',
  [
    `ALTER TABLE orders ADD COLUMN end_reminded_for timestamptz`,
    `CREATE INDEX orders_in_use_by_end ON orders (ends_at) WHERE status = 'in_use'`,
  ],
  [`DROP INDEX orders_in_use_by_end`, `ALTER TABLE orders DROP COLUMN end_reminded_for`],
);
