import { sqlMigration } from '@market/shared/db';

/**
 * The mismatches the periodic money:verify has already raised, so each is audited and alerted once
 * rather than at every run; a mismatch that is gone is forgotten, so its return is raised again.
 */
export const RememberMoneyMismatches1765900000001 = sqlMigration(
  'RememberMoneyMismatches1765900000001',
  [
    `CREATE TABLE money_mismatches (
       check_name text NOT NULL,
       subject_id text NOT NULL,
       fen bigint NOT NULL,
       raised_at timestamptz NOT NULL,
       PRIMARY KEY (check_name, subject_id)
     )`,
  ],
  [`DROP TABLE money_mismatches`],
);
