import { sqlMigration } from '@market/shared/db';

/** The wallet's withdrawal limits (ADR 0032), at the values SYSTEM_CONFIG_DEFAULTS names. */
export const SeedWithdrawalLimits1765400000002 = sqlMigration(
  'SeedWithdrawalLimits1765400000002',
  [
    `INSERT INTO system_configs (key, value, description) VALUES
       ('withdrawal.min_amount', '1000'::jsonb, 'smallest withdrawal, in fen'),
       ('withdrawal.daily_limit', '5000000'::jsonb, 'most a user may withdraw per UTC day, in fen'),
       ('withdrawal.auto_approve_below', '0'::jsonb, 'withdrawals below this many fen are sent without review; 0 reviews every one')
     ON CONFLICT (key) DO NOTHING`,
  ],
  [`DELETE FROM system_configs WHERE key IN ('withdrawal.min_amount', 'withdrawal.daily_limit', 'withdrawal.auto_approve_below')`],
);
