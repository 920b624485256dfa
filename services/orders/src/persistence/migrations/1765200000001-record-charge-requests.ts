import { sqlMigration } from '@market/shared/db';

/**
 * Pay without locks across calls (ADR 0028): the charge an order asked the wallet for and until
 * when that charge may land, the reconciler's lease, whether the stored credentials were looked
 * at after payment, and the platform rate frozen when the order was paid; when the back office was
 * alerted about an overdue disputed or abnormal order (ADR 0029). Orders paid before this
 * migration had their credentials handed over in the pay itself.
 */
export const RecordChargeRequests1765200000001 = sqlMigration(
  'RecordChargeRequests1765200000001',
  [
    `ALTER TABLE orders
       ADD COLUMN charge_requested_at timestamptz,
       ADD COLUMN charge_deadline_at timestamptz,
       ADD COLUMN charge_checked_at timestamptz,
       ADD COLUMN credentials_checked_at timestamptz,
       ADD COLUMN fee_rate_bps integer CHECK (fee_rate_bps BETWEEN 0 AND 10000),
       ADD COLUMN overdue_alerted_at timestamptz`,
    `UPDATE orders SET credentials_checked_at = paid_at WHERE paid_at IS NOT NULL`,
    `CREATE INDEX orders_charge_unsettled ON orders (charge_deadline_at) WHERE charge_deadline_at IS NOT NULL`,
    `CREATE INDEX orders_credentials_unchecked ON orders (paid_at) WHERE paid_at IS NOT NULL AND credentials_checked_at IS NULL`,
  ],
  [
    `DROP INDEX orders_credentials_unchecked`,
    `DROP INDEX orders_charge_unsettled`,
    `ALTER TABLE orders DROP COLUMN charge_requested_at, DROP COLUMN charge_deadline_at, DROP COLUMN charge_checked_at,
       DROP COLUMN credentials_checked_at, DROP COLUMN fee_rate_bps, DROP COLUMN overdue_alerted_at`,
  ],
);
