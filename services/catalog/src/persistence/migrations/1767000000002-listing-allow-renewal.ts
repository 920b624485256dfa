import { sqlMigration } from '@market/shared/db';

/** Whether a renter may extend an order in use of the listing (ADR 0065); every listing allows it until its owner says otherwise. */
export const ListingAllowRenewal1767000000002 = sqlMigration(
  'ListingAllowRenewal1767000000002',
  [`ALTER TABLE listings ADD COLUMN allow_renewal boolean NOT NULL DEFAULT true`],
  [`ALTER TABLE listings DROP COLUMN allow_renewal`],
);
