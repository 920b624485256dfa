import { sqlMigration } from '@market/shared/db';

/** How long the parties of a completed order may rate each other (ADR 0066), at the value SYSTEM_CONFIG_DEFAULTS names. */
export const SeedRatingWindow1767100000002 = sqlMigration(
  'SeedRatingWindow1767100000002',
  [
    `INSERT INTO system_configs (key, value, description) VALUES
       ('rating.window_days', '7'::jsonb,
        'days after an order completes during which each party may rate the other; then the ratings given are published')
     ON CONFLICT (key) DO NOTHING`,
  ],
  [`DELETE FROM system_configs WHERE key = 'rating.window_days'`],
);
