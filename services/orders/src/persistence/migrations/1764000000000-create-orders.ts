import { sqlMigration } from '@market/shared/db';

/**
 * Orders, their handoff records and disputes, and orders' copy of the system configuration.
 * Money is bigint fen. One active order per listing is the partial unique index (the active
 * states of domain/order-state.ts), so of renters racing for a listing exactly one insert wins.
 */
export const CreateOrders1764000000000 = sqlMigration(
  'CreateOrders1764000000000',
  [
    `
      CREATE TABLE orders (
        id uuid PRIMARY KEY,
        listing_id uuid NOT NULL,
        listing_title text NOT NULL,
        renter_id uuid NOT NULL,
        owner_id uuid NOT NULL,
        hours integer NOT NULL CHECK (hours > 0),
        hourly_price bigint NOT NULL CHECK (hourly_price >= 0),
        rent bigint NOT NULL CHECK (rent >= 0),
        deposit bigint NOT NULL CHECK (deposit >= 0),
        amount bigint NOT NULL CHECK (amount = rent + deposit),
        status text NOT NULL,
        paid_at timestamptz,
        started_at timestamptz,
        ends_at timestamptz,
        checkout jsonb,
        dispute_id uuid,
        status_changed_at timestamptz NOT NULL,
        deadline_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`,
    `CREATE UNIQUE INDEX orders_one_active_per_listing ON orders (listing_id)
       WHERE status IN ('pending_payment', 'pending_handoff', 'pending_receive', 'in_use',
                        'pending_checkout_confirm', 'pending_correction_confirm', 'disputed', 'abnormal')`,
    `CREATE INDEX orders_due ON orders (deadline_at) WHERE deadline_at IS NOT NULL`,
    `CREATE INDEX orders_by_renter ON orders (renter_id, created_at DESC, id DESC)`,
    `CREATE INDEX orders_by_owner ON orders (owner_id, created_at DESC, id DESC)`,
    `
      CREATE TABLE handoff_records (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders (id),
        author_id uuid NOT NULL,
        author_role text NOT NULL CHECK (author_role IN ('owner', 'renter')),
        content_sealed text NOT NULL,
        attachment_keys text[] NOT NULL DEFAULT '{}',
        by_system boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL
      )`,
    `CREATE INDEX handoff_records_by_order ON handoff_records (order_id, created_at, id)`,
    `
      CREATE TABLE disputes (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders (id),
        type text NOT NULL CHECK (type IN ('handoff', 'usage', 'checkout')),
        raised_by uuid NOT NULL,
        reason text NOT NULL,
        evidence_keys text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
        result text CHECK (result IN ('complete', 'close', 'mark_abnormal')),
        resolution_note text,
        created_at timestamptz NOT NULL,
        resolved_at timestamptz
      )`,
    `CREATE UNIQUE INDEX disputes_one_open_per_order ON disputes (order_id) WHERE status = 'open'`,
    `CREATE INDEX disputes_recent ON disputes (created_at DESC, id DESC)`,
    `
      CREATE TABLE system_settings (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
  ],
  [`DROP TABLE system_settings`, `DROP TABLE disputes`, `DROP TABLE handoff_records`, `DROP TABLE orders`],
);
