import { sqlMigration } from '@market/shared/db';

/**
 * Real payment channels: a QR payment's code content, and when the expiry scan and the active query
 * last looked at a pending payment, so each scan claims rows nobody looked at lately instead of
 * re-reading the same ones (ADR 0031).
 */
export const PaymentChannels1765400000001 = sqlMigration(
  'PaymentChannels1765400000001',
  [
    `ALTER TABLE payments ADD COLUMN qr_code text, ADD COLUMN expiry_checked_at timestamptz, ADD COLUMN queried_at timestamptz`,
    `CREATE INDEX payments_pending_created ON payments (created_at) WHERE status = 'pending'`,
  ],
  [`DROP INDEX payments_pending_created`, `ALTER TABLE payments DROP COLUMN qr_code, DROP COLUMN expiry_checked_at, DROP COLUMN queried_at`],
);
