import { sqlMigration } from '@market/shared/db';

/**
 * The withdrawal lifecycle of ADR 0049: a transfer Alipay paid and then returned (`REFUND`) ends
 * `reversed`, its amount moved back from the payout account to the user (`withdrawal_reversal`); a
 * WeChat transfer the payee must confirm keeps its `package_info` while it waits (cleared when
 * final); the back office is alerted once about a transfer whose outcome stays unknown too long.
 * It runs after the refunds' migration (1766500000050), so its list of transfer types keeps theirs.
 */
export const WithdrawalLifecycle1766600000001 = sqlMigration(
  'WithdrawalLifecycle1766600000001',
  [
    `ALTER TABLE transfers DROP CONSTRAINT transfers_biz_type_check`,
    `ALTER TABLE transfers ADD CONSTRAINT transfers_biz_type_check CHECK (biz_type IN
       ('recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment',
        'withdrawal', 'withdrawal_refund', 'withdrawal_payout', 'refund_hold', 'refund_payout', 'refund_release', 'withdrawal_reversal'))`,
    `ALTER TABLE withdrawals DROP CONSTRAINT withdrawals_status_check`,
    `ALTER TABLE withdrawals ADD CONSTRAINT withdrawals_status_check CHECK (status IN
       ('pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled', 'reversed'))`,
    `ALTER TABLE withdrawals ADD COLUMN payee_confirmation text, ADD COLUMN unknown_alerted_at timestamptz`,
    // a paid withdrawal may wait for its one look for a reversal
    `CREATE INDEX withdrawals_reversal_due ON withdrawals (next_check_at) WHERE status = 'paid' AND next_check_at IS NOT NULL`,
  ],
  [
    `DROP INDEX withdrawals_reversal_due`,
    `ALTER TABLE withdrawals DROP COLUMN payee_confirmation, DROP COLUMN unknown_alerted_at`,
    `ALTER TABLE withdrawals DROP CONSTRAINT withdrawals_status_check`,
    `ALTER TABLE withdrawals ADD CONSTRAINT withdrawals_status_check CHECK (status IN
       ('pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled'))`,
    `ALTER TABLE transfers DROP CONSTRAINT transfers_biz_type_check`,
    `ALTER TABLE transfers ADD CONSTRAINT transfers_biz_type_check CHECK (biz_type IN
       ('recharge', 'order_payment', 'order_refund', 'settlement_income', 'settlement_refund', 'platform_fee', 'adjustment',
        'withdrawal', 'withdrawal_refund', 'withdrawal_payout', 'refund_hold', 'refund_payout', 'refund_release'))`,
  ],
);
