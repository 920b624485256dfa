import { sqlMigration } from '@market/shared/db';

/**
 * The latest money check (ADR 0052): its result, when it read the services, and until when a
 * replica has claimed the next run, so a GET answers the stored result while it is fresh and all
 * replicas together recompute it at most once per interval.
 */
export const KeepMoneyCheckResults1766300000002 = sqlMigration(
  'KeepMoneyCheckResults1766300000002',
  [
    `CREATE TABLE money_check_results (
       id smallint PRIMARY KEY CHECK (id = 1),
       checked_at timestamptz,
       result jsonb,
       running_until timestamptz
     )`,
  ],
  [`DROP TABLE money_check_results`],
);
