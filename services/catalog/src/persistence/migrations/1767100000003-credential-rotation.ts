import { sqlMigration } from '@market/shared/db';

/**
 * Credential rotation (ADR 0066). A listing with stored credentials requires it from now on, and
 * counts as rotated now, so no rental before this migration holds it back. `listing_rentals` learns
 * whether an order handed the account over and when (by orders' clock) it ended; `awaiting_rotation`
 * is derived from them under the listing's lock, as `rented` is.
 */
export const CredentialRotation1767100000003 = sqlMigration(
  'CredentialRotation1767100000003',
  [
    `ALTER TABLE listings
       ADD COLUMN require_rotation boolean NOT NULL DEFAULT false,
       ADD COLUMN awaiting_rotation boolean NOT NULL DEFAULT false,
       ADD COLUMN rotation_confirmed_at timestamptz`,
    `UPDATE listings SET require_rotation = true, rotation_confirmed_at = now() WHERE id IN (SELECT listing_id FROM listing_credentials)`,
    `ALTER TABLE listing_rentals ADD COLUMN handed_over boolean NOT NULL DEFAULT false, ADD COLUMN order_ended_at timestamptz`,
    `CREATE INDEX listings_awaiting_rotation ON listings (owner_id) WHERE awaiting_rotation`,
  ],
  [
    `DROP INDEX listings_awaiting_rotation`,
    `ALTER TABLE listing_rentals DROP COLUMN order_ended_at, DROP COLUMN handed_over`,
    `ALTER TABLE listings DROP COLUMN rotation_confirmed_at, DROP COLUMN awaiting_rotation, DROP COLUMN require_rotation`,
  ],
);
