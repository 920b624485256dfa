import { sqlMigration } from '@market/shared/db';

/**
 * Owners' blocks of renters (ADR 0065): a blocked renter cannot order the owner's listings. One row
 * per (owner, renter); the id orders the owner's list. Renters' orders by status serve the renter limits.
 */
export const RenterBlocks1767000000002 = sqlMigration(
  'RenterBlocks1767000000002',
  [
    `CREATE TABLE renter_blocks (
        id uuid PRIMARY KEY,
        owner_id uuid NOT NULL,
        renter_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (owner_id, renter_id)
     )`,
    `CREATE INDEX renter_blocks_of_renter ON renter_blocks (renter_id)`,
    `CREATE INDEX orders_by_renter_status ON orders (renter_id, status)`,
  ],
  [`DROP INDEX orders_by_renter_status`, `DROP TABLE renter_blocks`],
);
