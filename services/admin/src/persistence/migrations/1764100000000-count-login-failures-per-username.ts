import { sqlMigration } from '@market/shared/db';

/**
 * Failed logins move from the admin row to a table keyed by the username typed, so a name no admin
 * has is counted and locked exactly like a real one and the lockout no longer tells which exist.
 */
export const CountLoginFailuresPerUsername1764100000000 = sqlMigration(
  'CountLoginFailuresPerUsername1764100000000',
  [
    `CREATE TABLE admin_login_failures (
       username text PRIMARY KEY,
       failed_logins integer NOT NULL CHECK (failed_logins > 0),
       locked_until timestamptz,
       last_attempt_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE INDEX admin_login_failures_last_attempt ON admin_login_failures (last_attempt_at)`,
    `INSERT INTO admin_login_failures (username, failed_logins, locked_until)
     SELECT username, GREATEST(failed_logins, 1), locked_until FROM admin_users WHERE failed_logins > 0 OR locked_until IS NOT NULL`,
    `ALTER TABLE admin_users DROP COLUMN failed_logins, DROP COLUMN locked_until`,
  ],
  [
    `ALTER TABLE admin_users
       ADD COLUMN failed_logins integer NOT NULL DEFAULT 0 CHECK (failed_logins >= 0),
       ADD COLUMN locked_until timestamptz`,
    `UPDATE admin_users u SET failed_logins = f.failed_logins, locked_until = f.locked_until
     FROM admin_login_failures f WHERE f.username = u.username`,
    `DROP TABLE admin_login_failures`,
  ],
);
