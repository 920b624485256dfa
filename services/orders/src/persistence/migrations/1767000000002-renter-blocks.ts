import { sqlMigration } from '@market/shared/db';

/**
 * Owners' blocks of renters (ADR 0065): a blocked renter cannot order the owner's listings. One row
 * per (owner, renter); the id orders the owner's list. The renter limits count a renter's orders through
 * `orders_by_renter`.
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
  ],
  [`DROP TABLE renter_blocks`],
);
