import { sqlMigration } from '@market/shared/db';

/** Orders refuses renters without verified real name while this is true (off by default). */
export const SeedRequireRealname1764000000000 = sqlMigration(
  'SeedRequireRealname1764000000000',
  [
    `INSERT INTO system_configs (key, value, description)
     VALUES ('order.require_realname', 'false'::jsonb, 'when true, only users with verified real name can create orders')
     ON CONFLICT (key) DO NOTHING`,
  ],
  [`DELETE FROM system_configs WHERE key = 'order.require_realname'`],
);
