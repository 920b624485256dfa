import type { Migration, Queryable } from '@market/shared/db';

const SEEDED_CONFIGS: Array<[key: string, value: number, description: string]> = [
  ['order.payment_timeout_minutes', 15, 'minutes an unpaid order waits before it is cancelled'],
  ['order.handoff_timeout_minutes', 30, 'minutes a paid order waits for the owner to hand the account over before it is cancelled'],
  ['order.receive_timeout_minutes', 30, 'minutes after the handoff before receipt is confirmed automatically'],
  ['order.checkout_grace_minutes', 30, 'minutes after the rental ends before checkout starts automatically'],
  ['order.checkout_confirm_timeout_minutes', 1440, 'minutes the owner has to confirm or counter a checkout before it completes'],
  ['order.correction_confirm_timeout_minutes', 1440, "minutes the renter has to answer the owner's counter before it completes"],
  ['platform.commission_rate_bps', 500, 'platform fee on settled consumption, in basis points (500 = 5%)'],
];

export class CreateAdminTables1763900000000 implements Migration {
  name = 'CreateAdminTables1763900000000';

  async up(q: Queryable) {
    await q.query(`
      CREATE TABLE admin_users (
        id uuid PRIMARY KEY,
        username text NOT NULL CONSTRAINT admin_users_username_key UNIQUE,
        nickname text NOT NULL,
        password_hash text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        failed_logins integer NOT NULL DEFAULT 0 CHECK (failed_logins >= 0),
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX admin_users_active_nickname ON admin_users (nickname) WHERE status = 'active'`);
    await q.query(`
      CREATE TABLE admin_sessions (
        id uuid PRIMARY KEY,
        admin_id uuid NOT NULL REFERENCES admin_users (id),
        ip text,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX admin_sessions_admin ON admin_sessions (admin_id)`);
    await q.query(`
      CREATE TABLE system_configs (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        description text NOT NULL,
        updated_at timestamptz,
        updated_by uuid
      )`);
    for (const [key, value, description] of SEEDED_CONFIGS) {
      await q.query(`INSERT INTO system_configs (key, value, description) VALUES ($1, $2::jsonb, $3)`, [
        key,
        JSON.stringify(value),
        description,
      ]);
    }
    await q.query(`
      CREATE TABLE audit_logs (
        id uuid PRIMARY KEY,
        actor_type text NOT NULL,
        actor_id text,
        action text NOT NULL,
        biz_type text NOT NULL,
        biz_id text,
        detail jsonb NOT NULL DEFAULT '{}'::jsonb,
        ip text,
        result text NOT NULL,
        request_id text,
        producer text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX audit_logs_recent ON audit_logs (created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_logs_by_actor ON audit_logs (actor_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_logs_by_action ON audit_logs (action, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_logs_by_biz_type ON audit_logs (biz_type, created_at DESC, id DESC)`);
  }

  async down(q: Queryable) {
    await q.query(`DROP TABLE audit_logs`);
    await q.query(`DROP TABLE system_configs`);
    await q.query(`DROP TABLE admin_sessions`);
    await q.query(`DROP TABLE admin_users`);
  }
}
