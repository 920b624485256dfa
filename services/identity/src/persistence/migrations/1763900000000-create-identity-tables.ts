import { sqlMigration } from '@market/shared/db';

export const CreateIdentityTables1763900000000 = sqlMigration(
  'CreateIdentityTables1763900000000',
  [
    // created_at keeps milliseconds only, so a keyset cursor carrying it as an ISO string is exact.
    `
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        phone text UNIQUE,
        publisher_for_admin_id uuid UNIQUE,
        nickname text NOT NULL,
        avatar_url text,
        frozen boolean NOT NULL DEFAULT false,
        frozen_reason text,
        frozen_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        CONSTRAINT users_phone_xor_publisher CHECK ((phone IS NULL) <> (publisher_for_admin_id IS NULL))
      )`,
    `CREATE INDEX users_newest_first ON users (created_at DESC, id DESC)`,
    `
      CREATE TABLE realname_verifications (
        user_id uuid PRIMARY KEY REFERENCES users (id),
        status text NOT NULL CHECK (status IN ('pending', 'verified', 'failed')),
        real_name_sealed text NOT NULL,
        id_number_sealed text NOT NULL,
        verified_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        revoked_reason text
      )`,
    `CREATE INDEX sessions_live_by_user ON sessions (user_id) WHERE revoked_at IS NULL`,
    `
      CREATE TABLE refresh_tokens (
        id uuid PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES sessions (id),
        token_hash bytea NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        rotated_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    `CREATE INDEX refresh_tokens_by_session ON refresh_tokens (session_id)`,
  ],
  [
    `DROP TABLE refresh_tokens`,
    `DROP TABLE sessions`,
    `DROP TABLE realname_verifications`,
    `DROP TABLE users`,
  ],
);
