import { sqlMigration } from '@market/shared/db';

/**
 * The charges of an order's renewals (ADR 0065): each one moved its amount from the renter into the
 * escrow the order's first charge opened, and grew that escrow's amount by it. The renewal id is the
 * idempotency key of its charge.
 */
export const CreateRenewalCharges1767000000001 = sqlMigration(
  'CreateRenewalCharges1767000000001',
  [
    `CREATE TABLE order_escrow_renewals (
        renewal_id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES order_escrows (order_id),
        renter_id uuid NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        payment_id uuid NOT NULL UNIQUE,
        charged_at timestamptz NOT NULL
     )`,
    `CREATE INDEX order_escrow_renewals_order ON order_escrow_renewals (order_id)`,
  ],
  [`DROP TABLE order_escrow_renewals`],
);
