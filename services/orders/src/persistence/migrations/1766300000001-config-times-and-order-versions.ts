import { sqlMigration } from '@market/shared/db';

/**
 * ADR 0052: each stored configuration value keeps the time admin changed it (null for a copy stored
 * before, which any change replaces), so an older change arriving late is not applied; each order
 * counts its changes, so an admin's decision made on the order as it was read is refused once another
 * move has committed in between.
 */
export const ConfigTimesAndOrderVersions1766300000001 = sqlMigration(
  'ConfigTimesAndOrderVersions1766300000001',
  [`ALTER TABLE system_settings ADD COLUMN changed_at timestamptz`, `ALTER TABLE orders ADD COLUMN version integer NOT NULL DEFAULT 0`],
  [`ALTER TABLE orders DROP COLUMN version`, `ALTER TABLE system_settings DROP COLUMN changed_at`],
);
