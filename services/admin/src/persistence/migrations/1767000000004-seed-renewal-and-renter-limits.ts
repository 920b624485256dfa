import { sqlMigration } from '@market/shared/db';

/** The renewal, end-reminder and new-renter configs (ADR 0065), at the values SYSTEM_CONFIG_DEFAULTS names. */
export const SeedRenewalAndRenterLimits1767000000004 = sqlMigration(
  'SeedRenewalAndRenterLimits1767000000004',
  [
    `INSERT INTO system_configs (key, value, description) VALUES
       ('order.renewal_min_remaining_minutes', '5'::jsonb,
        'a renewal is refused once less than this many minutes of the rental remain before it ends'),
       ('order.end_reminder_minutes', '10'::jsonb,
        'the renter is reminded this many minutes before the rental ends, once per end time'),
       ('renter.trusted_after_orders', '10'::jsonb,
        'a renter with fewer completed orders than this is new, and the new-renter limits apply'),
       ('renter.new_max_active', '2'::jsonb,
        'most active orders a new renter may hold at once'),
       ('renter.new_max_daily', '5'::jsonb,
        'most orders a new renter may create per UTC day'),
       ('renter.new_balance_exempt', '10000'::jsonb,
        'a new renter whose available balance is at least this many fen is not held to the new-renter limits')
     ON CONFLICT (key) DO NOTHING`,
  ],
  [
    `DELETE FROM system_configs WHERE key IN ('order.renewal_min_remaining_minutes', 'order.end_reminder_minutes',
       'renter.trusted_after_orders', 'renter.new_max_active', 'renter.new_max_daily', 'renter.new_balance_exempt')`,
  ],
);
