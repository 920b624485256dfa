import { sqlMigration } from '@market/shared/db';

/**
 * Withdrawals on the ledger (ADR 0032): a request moves the amount from the user's available account
 * to the withdrawal's own hold account (`withdrawal:<id>`); a paid transfer moves the hold to the
 * provider's payout account (`payout:<channel>`, what left the platform), a failed, rejected or
 * cancelled one moves it back.
 */
export const CreateWithdrawals1765400000003 = sqlMigration(
  'CreateWithdrawals1765400000003',
  [
    `ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check`,
    `ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN
       ('user_available', 'order_escrow', 'platform_revenue', 'gateway_clearing', 'withdrawal_hold', 'payout_clearing'))`,
    `ALTER TABLE transfers DROP CONSTRAINT transfers_biz_type_check`,
    `ALTER TABLE transfers ADD CONSTRAINT transfers_biz_type_check CHECK (biz_type IN
       ('recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment',
        'withdrawal', 'withdrawal_refund', 'withdrawal_payout'))`,
    `ALTER TABLE transfers ADD COLUMN withdrawal_id uuid`,
    `CREATE INDEX transfers_withdrawal ON transfers (withdrawal_id) WHERE withdrawal_id IS NOT NULL`,
    `
      CREATE TABLE withdrawals (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        channel text NOT NULL,
        payee_account text NOT NULL,
        payee_name text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled')),
        reason text,
        decided_by uuid,
        decided_at timestamptz,
        -- first time the transfer was asked for: from then on the outcome is asked about, never sent blind again
        sent_at timestamptz,
        next_check_at timestamptz,
        provider_order_id text,
        paid_at timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL,
        CHECK ((status IN ('pending_review', 'processing')) = (finished_at IS NULL))
      )`,
    `CREATE INDEX withdrawals_user ON withdrawals (user_id, id DESC)`,
    `CREATE INDEX withdrawals_status ON withdrawals (status, id DESC)`,
    `CREATE INDEX withdrawals_due ON withdrawals (next_check_at) WHERE status = 'processing'`,
  ],
  [
    `DROP TABLE withdrawals`,
    `DROP INDEX transfers_withdrawal`,
    `ALTER TABLE transfers DROP COLUMN withdrawal_id`,
    `ALTER TABLE transfers DROP CONSTRAINT transfers_biz_type_check`,
    `ALTER TABLE transfers ADD CONSTRAINT transfers_biz_type_check CHECK (biz_type IN
       ('recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment'))`,
    `ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check`,
    `ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN ('user_available', 'order_escrow', 'platform_revenue', 'gateway_clearing'))`,
  ],
);
