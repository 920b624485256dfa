import { sqlMigration } from '@market/shared/db';

/** The free minutes past a rental's end before overtime is charged (ADR 0071), at the value SYSTEM_CONFIG_DEFAULTS names. */
export const SeedGraceMinutes1767300000001 = sqlMigration(
  'SeedGraceMinutes1767300000001',
  [
    `INSERT INTO system_configs (key, value, description)
     VALUES ('order.grace_minutes', '5'::jsonb,
             'minutes past the rental''s end the renter is not charged for; after them overtime is charged per started minute at the hourly price, from the deposit')
     ON CONFLICT (key) DO NOTHING`,
  ],
  [`DELETE FROM system_configs WHERE key = 'order.grace_minutes'`],
);
