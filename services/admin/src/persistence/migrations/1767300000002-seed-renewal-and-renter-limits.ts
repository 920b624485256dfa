import { sqlMigration } from '@market/shared/db';

/**
 * The keys of renewal, the end reminder and the new-renter limits (ADR 0065), at the values
 * SYSTEM_CONFIG_DEFAULTS names: without their rows the back office could neither list nor change them.
 */
export const SeedRenewalAndRenterLimits1767300000002 = sqlMigration(
  'SeedRenewalAndRenterLimits1767300000002',
  [
    `INSERT INTO system_configs (key, value, description) VALUES
       ('order.renewal_min_remaining_minutes', '5'::jsonb, 'a renewal is refused once less than this many minutes of the rental remain before it ends'),
       ('order.end_reminder_minutes', '10'::jsonb, 'minutes before the rental ends when the renter is reminded, once per end time'),
       ('renter.trusted_after_orders', '10'::jsonb, 'completed orders after which a renter is no longer new and the new-renter limits stop applying'),
       ('renter.new_max_active', '2'::jsonb, 'most active orders a new renter may hold at once'),
       ('renter.new_max_daily', '5'::jsonb, 'most orders a new renter may create per UTC day'),
       ('renter.new_balance_exempt', '10000'::jsonb, 'fen of available balance from which a new renter is exempt from the new-renter limits')
     ON CONFLICT (key) DO NOTHING`,
  ],
  [
    `DELETE FROM system_configs WHERE key IN ('order.renewal_min_remaining_minutes', 'order.end_reminder_minutes', 'renter.trusted_after_orders',
       'renter.new_max_active', 'renter.new_max_daily', 'renter.new_balance_exempt')`,
  ],
);
