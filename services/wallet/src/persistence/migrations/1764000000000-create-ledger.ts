import { sqlMigration } from '@market/shared/db';

/**
 * The double-entry ledger. Every account's balance is the sum of its entries; every transfer is two
 * entries of opposite sign, so the balances over all accounts sum to zero. Sign convention: money the
 * platform holds for someone is positive; the payment-gateway clearing account goes negative by what
 * came in from outside.
 */
export const CreateLedger1764000000000 = sqlMigration(
  'CreateLedger1764000000000',
  [
    `
      CREATE TABLE accounts (
        key text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('user_available', 'order_escrow', 'platform_revenue', 'gateway_clearing')),
        owner_id uuid,
        balance bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((kind IN ('user_available', 'order_escrow')) = (owner_id IS NOT NULL)),
        -- nobody's money goes below zero: users, escrows and the platform hold, the gateway owes
        CHECK (kind = 'gateway_clearing' OR balance >= 0),
        CHECK (kind <> 'gateway_clearing' OR balance <= 0)
      )`,
    `
      CREATE TABLE transfers (
        id uuid PRIMARY KEY,
        from_account text NOT NULL REFERENCES accounts (key),
        to_account text NOT NULL REFERENCES accounts (key),
        amount bigint NOT NULL CHECK (amount > 0),
        biz_type text NOT NULL CHECK (biz_type IN
          ('recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment')),
        order_id uuid,
        payment_id uuid,
        created_at timestamptz NOT NULL,
        CHECK (from_account <> to_account)
      )`,
    `CREATE INDEX transfers_order ON transfers (order_id) WHERE order_id IS NOT NULL`,
    `CREATE INDEX transfers_payment ON transfers (payment_id) WHERE payment_id IS NOT NULL`,
    // user_id is the owner of a user's available account: those entries are the ledger users see.
    `
      CREATE TABLE entries (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        transfer_id uuid NOT NULL REFERENCES transfers (id),
        account_key text NOT NULL REFERENCES accounts (key),
        user_id uuid,
        order_id uuid,
        biz_type text NOT NULL,
        amount bigint NOT NULL CHECK (amount <> 0),
        balance_after bigint NOT NULL,
        created_at timestamptz NOT NULL
      )`,
    `CREATE INDEX entries_user ON entries (user_id, seq DESC) WHERE user_id IS NOT NULL`,
    `CREATE INDEX entries_user_lines ON entries (seq DESC) WHERE user_id IS NOT NULL`,
    `CREATE INDEX entries_account ON entries (account_key, seq)`,
    `CREATE INDEX entries_order ON entries (order_id, seq DESC) WHERE order_id IS NOT NULL`,
    // The wallet's record of each order's escrow: charged once (order id = idempotency key), then
    // settled, refunded, or void when the order ended before any charge.
    `
      CREATE TABLE order_escrows (
        order_id uuid PRIMARY KEY,
        renter_id uuid NOT NULL,
        owner_id uuid NOT NULL,
        amount bigint NOT NULL CHECK (amount >= 0),
        status text NOT NULL CHECK (status IN ('held', 'settled', 'refunded', 'void')),
        payment_id uuid UNIQUE,
        charged_at timestamptz,
        ended_at timestamptz,
        end_event text,
        CHECK ((status = 'void') = (payment_id IS NULL)),
        CHECK ((status = 'held') = (ended_at IS NULL))
      )`,
    `CREATE INDEX order_escrows_renter_held ON order_escrows (renter_id) WHERE status = 'held'`,
    `
      CREATE TABLE payments (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        channel text NOT NULL,
        provider text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'expired')),
        pay_url text NOT NULL,
        gateway_txn_id text,
        expires_at timestamptz NOT NULL,
        paid_at timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL,
        CHECK ((status = 'pending') = (finished_at IS NULL))
      )`,
    `CREATE INDEX payments_pending_expiry ON payments (expires_at) WHERE status = 'pending'`,
  ],
  [`DROP TABLE payments`, `DROP TABLE order_escrows`, `DROP TABLE entries`, `DROP TABLE transfers`, `DROP TABLE accounts`],
);
