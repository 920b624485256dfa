import { sqlMigration } from '@market/shared/db';

/** Catalog's read model of identity's freezes, and which listings a freeze took offline. */
export const CreateOwnerStanding1763900000002 = sqlMigration(
  'CreateOwnerStanding1763900000002',
  [
    // `as_of` is the time of the freeze or unfreeze applied last: an older event arriving late
    // (a retry, a replay from the DLQ) cannot undo a newer one.
    `
      CREATE TABLE owner_standing (
        owner_id uuid PRIMARY KEY,
        frozen boolean NOT NULL,
        as_of timestamptz NOT NULL
      )`,
    // The listings a freeze took offline, so an unfreeze brings back those and no other.
    `
      CREATE TABLE frozen_owner_holds (
        listing_id uuid PRIMARY KEY REFERENCES listings (id),
        owner_id uuid NOT NULL
      )`,
    `CREATE INDEX frozen_owner_holds_owner ON frozen_owner_holds (owner_id)`,
  ],
  [`DROP TABLE frozen_owner_holds`, `DROP TABLE owner_standing`],
);
