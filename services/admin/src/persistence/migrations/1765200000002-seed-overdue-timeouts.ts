import { sqlMigration } from '@market/shared/db';

/** Deadlines of disputed and abnormal orders (ADR 0029), for installations created before they existed. */
export const SeedOverdueTimeouts1765200000002 = sqlMigration(
  'SeedOverdueTimeouts1765200000002',
  [
    `INSERT INTO system_configs (key, value, description)
     VALUES ('order.dispute_timeout_hours', '72'::jsonb,
             'hours a dispute may stay undecided before the back office is alerted; after twice this the default resolution applies'),
            ('order.abnormal_timeout_hours', '168'::jsonb,
             'hours an order may stay abnormal before the back office is alerted; after twice this the default resolution applies')
     ON CONFLICT (key) DO NOTHING`,
  ],
  [`DELETE FROM system_configs WHERE key IN ('order.dispute_timeout_hours', 'order.abnormal_timeout_hours')`],
);
