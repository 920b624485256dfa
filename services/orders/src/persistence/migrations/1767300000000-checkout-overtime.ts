import { sqlMigration } from '@market/shared/db';

/** Checkouts stored before overtime was charged (ADR 0071) charged none: every stored breakdown names its overtime. */
export const CheckoutOvertime1767300000000 = sqlMigration(
  'CheckoutOvertime1767300000000',
  [
    `UPDATE orders SET checkout = checkout || '{"overtime_minutes": 0, "overtime_fee": 0}'::jsonb
     WHERE checkout IS NOT NULL AND NOT checkout ? 'overtime_fee'`,
  ],
  [`UPDATE orders SET checkout = checkout - 'overtime_minutes' - 'overtime_fee' WHERE checkout IS NOT NULL`],
);
