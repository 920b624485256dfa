import { sqlMigration } from '@market/shared/db';

/**
 * Renewals (ADR 0065): each request of the renter to extend an order in use, with the charge asked of
 * the wallet and its outcome. `orders.renewal_charge_id` names the renewal whose charge is under way:
 * while it is set no other move of the order is made, so the order and its escrow never disagree on
 * the amount. A renewal charged and recorded keeps the end it moved.
 */
export const OrderRenewals1767000000001 = sqlMigration(
  'OrderRenewals1767000000001',
  [
    `ALTER TABLE orders ADD COLUMN renewal_charge_id uuid`,
    `CREATE TABLE order_renewals (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders (id),
        hours integer NOT NULL CHECK (hours > 0),
        rent bigint NOT NULL CHECK (rent > 0),
        status text NOT NULL CHECK (status IN ('charging', 'renewed', 'not_charged')),
        requested_at timestamptz NOT NULL,
        charge_deadline_at timestamptz NOT NULL,
        checked_at timestamptz,
        previous_ends_at timestamptz,
        ends_at timestamptz,
        renewed_at timestamptz
     )`,
    `CREATE INDEX order_renewals_order ON order_renewals (order_id, requested_at)`,
    `CREATE INDEX order_renewals_charging ON order_renewals (charge_deadline_at) WHERE status = 'charging'`,
  ],
  [`DROP TABLE order_renewals`, `ALTER TABLE orders DROP COLUMN renewal_charge_id`],
);
