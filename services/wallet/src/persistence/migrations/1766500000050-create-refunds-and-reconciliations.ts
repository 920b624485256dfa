import { sqlMigration } from '@market/shared/db';

const KINDS_BEFORE = `('user_available', 'order_escrow', 'platform_revenue', 'gateway_clearing', 'withdrawal_hold', 'payout_clearing')`;
const BIZ_BEFORE = `('recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment',
  'withdrawal', 'withdrawal_refund', 'withdrawal_payout')`;

/**
 * Refunds of recharges on the ledger (ADR 0050) and daily reconciliation with the providers' bills
 * (ADR 0051). An approved refund moves its amount from where it was (the user's available account,
 * or the gateway clearing account for money that was never credited) into its own hold account
 * (`refund:<id>`); a refunded one moves the hold to the provider's refund account (`refunded:<provider>`,
 * what left the platform), a failed one back. The sandbox keeps its own record of the refunds it
 * received, as a real provider would, and of the lines a test drops from or adds to its bill.
 */
export const CreateRefundsAndReconciliations1766500000050 = sqlMigration(
  'CreateRefundsAndReconciliations1766500000050',
  [
    `ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check`,
    `ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN
       ('user_available', 'order_escrow', 'platform_revenue', 'gateway_clearing', 'withdrawal_hold', 'payout_clearing', 'refund_hold', 'refund_clearing'))`,
    `ALTER TABLE transfers DROP CONSTRAINT transfers_biz_type_check`,
    `ALTER TABLE transfers ADD CONSTRAINT transfers_biz_type_check CHECK (biz_type IN
       ('recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment',
        'withdrawal', 'withdrawal_refund', 'withdrawal_payout', 'refund_hold', 'refund_payout', 'refund_release'))`,
    `ALTER TABLE transfers ADD COLUMN refund_id uuid`,
    `CREATE INDEX transfers_refund ON transfers (refund_id) WHERE refund_id IS NOT NULL`,
    `
      CREATE TABLE refunds (
        id uuid PRIMARY KEY,
        payment_id uuid NOT NULL REFERENCES payments (id),
        user_id uuid NOT NULL,
        provider text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('user_request', 'late_success', 'amount_mismatch')),
        amount bigint NOT NULL CHECK (amount > 0),
        reason text,
        status text NOT NULL CHECK (status IN ('requested', 'approved', 'processing', 'refunded', 'failed', 'rejected')),
        decided_by uuid,
        decided_at timestamptz,
        -- first time the refund was asked for: from then on the outcome is asked about, never sent blind again
        sent_at timestamptz,
        next_check_at timestamptz,
        -- looks at an unknown outcome so far: the wait before the next one doubles with each
        checks int NOT NULL DEFAULT 0,
        provider_refund_id text,
        refunded_at timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL,
        CHECK ((status IN ('requested', 'approved', 'processing')) = (finished_at IS NULL))
      )`,
    `CREATE INDEX refunds_payment ON refunds (payment_id)`,
    `CREATE INDEX refunds_user ON refunds (user_id, id DESC)`,
    `CREATE INDEX refunds_status ON refunds (status, id DESC)`,
    `CREATE INDEX refunds_due ON refunds (next_check_at) WHERE status IN ('approved', 'processing')`,
    `CREATE INDEX refunds_refunded_at ON refunds (provider, refunded_at) WHERE status = 'refunded'`,
    // money that arrived with another amount is returned once
    `CREATE UNIQUE INDEX refunds_one_mismatch ON refunds (payment_id) WHERE kind = 'amount_mismatch' AND status NOT IN ('failed', 'rejected')`,
    `
      CREATE TABLE reconciliation_runs (
        id uuid PRIMARY KEY,
        provider text NOT NULL,
        day date NOT NULL,
        status text NOT NULL CHECK (status IN ('clean', 'findings')),
        bill_lines int NOT NULL,
        ledger_lines int NOT NULL,
        matched int NOT NULL,
        findings int NOT NULL,
        bill_total bigint NOT NULL,
        ledger_total bigint NOT NULL,
        fee_total bigint NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (provider, day)
      )`,
    `CREATE INDEX reconciliation_runs_day ON reconciliation_runs (day DESC, id DESC)`,
    `
      CREATE TABLE reconciliation_findings (
        id uuid PRIMARY KEY,
        run_id uuid NOT NULL REFERENCES reconciliation_runs (id),
        kind text NOT NULL CHECK (kind IN ('missing_in_ledger', 'missing_in_bill', 'amount_mismatch', 'fee_mismatch')),
        line_kind text NOT NULL CHECK (line_kind IN ('payment', 'refund', 'transfer', 'fee')),
        reference text,
        provider_id text,
        bill_amount bigint,
        ledger_amount bigint
      )`,
    `CREATE INDEX reconciliation_findings_run ON reconciliation_findings (run_id, id)`,
    `
      CREATE TABLE sandbox_refunds (
        refund_id uuid PRIMARY KEY,
        payment_id uuid NOT NULL,
        amount bigint NOT NULL,
        status text NOT NULL CHECK (status IN ('processing', 'succeeded', 'failed')),
        provider_refund_id text NOT NULL UNIQUE,
        reason text,
        refunded_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      CREATE TABLE sandbox_bill_adjustments (
        id bigserial PRIMARY KEY,
        day date NOT NULL,
        action text NOT NULL CHECK (action IN ('drop', 'add')),
        kind text NOT NULL,
        reference text NOT NULL,
        amount bigint NOT NULL DEFAULT 0,
        fee bigint NOT NULL DEFAULT 0
      )`,
  ],
  [
    `DROP TABLE sandbox_bill_adjustments`,
    `DROP TABLE sandbox_refunds`,
    `DROP TABLE reconciliation_findings`,
    `DROP TABLE reconciliation_runs`,
    `DROP TABLE refunds`,
    `DROP INDEX transfers_refund`,
    `ALTER TABLE transfers DROP COLUMN refund_id`,
    `ALTER TABLE transfers DROP CONSTRAINT transfers_biz_type_check`,
    `ALTER TABLE transfers ADD CONSTRAINT transfers_biz_type_check CHECK (biz_type IN ${BIZ_BEFORE})`,
    `ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check`,
    `ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN ${KINDS_BEFORE})`,
  ],
);
