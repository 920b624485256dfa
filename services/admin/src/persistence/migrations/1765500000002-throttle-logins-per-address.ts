import { sqlMigration } from '@market/shared/db';

/**
 * Failed logins are counted per (username, client address), so a stranger who guesses at a named
 * admin holds off only their own address, for longer at each hold; the account itself is locked
 * only at a much higher count over every address, kept in a table of its own (ADR 0034). Rows
 * from before count as one unknown address.
 */
export const ThrottleLoginsPerAddress1765500000002 = sqlMigration(
  'ThrottleLoginsPerAddress1765500000002',
  [
    `ALTER TABLE admin_login_failures
       ADD COLUMN address text NOT NULL DEFAULT '',
       ADD COLUMN holds integer NOT NULL DEFAULT 0 CHECK (holds >= 0)`,
    `ALTER TABLE admin_login_failures DROP CONSTRAINT admin_login_failures_pkey`,
    `ALTER TABLE admin_login_failures ADD PRIMARY KEY (username, address)`,
    `CREATE TABLE admin_account_failures (
       username text PRIMARY KEY,
       failed_logins integer NOT NULL CHECK (failed_logins > 0),
       locked_until timestamptz,
       last_attempt_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE INDEX admin_account_failures_last_attempt ON admin_account_failures (last_attempt_at)`,
  ],
  [
    `DROP TABLE admin_account_failures`,
    `DELETE FROM admin_login_failures WHERE address <> ''`,
    `ALTER TABLE admin_login_failures DROP CONSTRAINT admin_login_failures_pkey`,
    `ALTER TABLE admin_login_failures ADD PRIMARY KEY (username)`,
    `ALTER TABLE admin_login_failures DROP COLUMN address, DROP COLUMN holds`,
  ],
);
