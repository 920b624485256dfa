import { z } from './zod';

const TimeoutMinutes = z.number().int().min(1).max(43_200);
const TimeoutHours = z.number().int().min(1).max(8760);

/**
 * Every system configuration key (docs/rules.md §9, plus `order.require_realname`) with the schema its
 * value must satisfy. Admin owns the values and refuses any other key or value; a service that works
 * by them reads them through admin's internal route.
 */
export const SYSTEM_CONFIG_SCHEMAS = {
  'order.payment_timeout_minutes': TimeoutMinutes,
  'order.handoff_timeout_minutes': TimeoutMinutes,
  'order.receive_timeout_minutes': TimeoutMinutes,
  'order.checkout_grace_minutes': TimeoutMinutes,
  'order.checkout_confirm_timeout_minutes': TimeoutMinutes,
  'order.correction_confirm_timeout_minutes': TimeoutMinutes,
  'platform.commission_rate_bps': z.number().int().min(0).max(5000),
  'order.require_realname': z.boolean(),
  /** smallest withdrawal, in fen */
  'withdrawal.min_amount': z.number().int().min(1).max(100_000_000),
  /** most a user may withdraw per UTC day, in fen (requests not rejected, cancelled or failed) */
  'withdrawal.daily_limit': z.number().int().min(1).max(1_000_000_000),
  /** withdrawals below this many fen are sent without review; 0 reviews every one */
  'withdrawal.auto_approve_below': z.number().int().min(0).max(1_000_000_000),
  /** a disputed order past this alerts the back office; past twice this its default resolution applies (ADR 0029) */
  'order.dispute_timeout_hours': TimeoutHours,
  /** an abnormal order past this alerts the back office; past twice this its default resolution applies (ADR 0029) */
  'order.abnormal_timeout_hours': TimeoutHours,
  /** a renewal is refused once less than this many minutes of the rental remain before ends_at (docs/rules.md §4 Renewal) */
  'order.renewal_min_remaining_minutes': z.number().int().min(0).max(1440),
  /** the renter is reminded this long before the rental ends, once per end time (a renewal moves it) */
  'order.end_reminder_minutes': z.number().int().min(1).max(1440),
  /** a renter with fewer completed orders than this is new, and the two limits below apply (docs/rules.md §4 Renter limits) */
  'renter.trusted_after_orders': z.number().int().min(0).max(1000),
  /** most active orders a new renter may hold at once */
  'renter.new_max_active': z.number().int().min(1).max(100),
  /** most orders a new renter may create per UTC day */
  'renter.new_max_daily': z.number().int().min(1).max(1000),
  /** a new renter whose available balance is at least this many fen is not held to the two limits */
  'renter.new_balance_exempt': z.number().int().min(0).max(1_000_000_000),
  /** days after an order completes during which each party may rate the other; then unpublished ratings publish (ADR 0066) */
  'rating.window_days': z.number().int().min(1).max(90),
  /** the first minutes past ends_at that cost the renter nothing; past them overtime is charged (docs/rules.md §4 Overtime) */
  'order.grace_minutes': z.number().int().min(0).max(60),
} as const;

export type SystemConfigKey = keyof typeof SYSTEM_CONFIG_SCHEMAS;
export type SystemConfigValues = { [K in SystemConfigKey]: z.infer<(typeof SYSTEM_CONFIG_SCHEMAS)[K]> };

/** The values a new installation starts with, and what a service works by until admin has answered. */
export const SYSTEM_CONFIG_DEFAULTS: SystemConfigValues = {
  'order.payment_timeout_minutes': 15,
  'order.handoff_timeout_minutes': 30,
  'order.receive_timeout_minutes': 30,
  'order.checkout_grace_minutes': 30,
  'order.checkout_confirm_timeout_minutes': 1440,
  'order.correction_confirm_timeout_minutes': 1440,
  'platform.commission_rate_bps': 500,
  'order.require_realname': false,
  'withdrawal.min_amount': 1_000,
  'withdrawal.daily_limit': 5_000_000,
  'withdrawal.auto_approve_below': 0,
  'order.dispute_timeout_hours': 72,
  'order.abnormal_timeout_hours': 168,
  'order.renewal_min_remaining_minutes': 5,
  'order.end_reminder_minutes': 10,
  'renter.trusted_after_orders': 10,
  'renter.new_max_active': 2,
  'renter.new_max_daily': 5,
  'renter.new_balance_exempt': 10_000,
  'rating.window_days': 7,
  'order.grace_minutes': 5,
};

export function isSystemConfigKey(key: string): key is SystemConfigKey {
  return Object.prototype.hasOwnProperty.call(SYSTEM_CONFIG_SCHEMAS, key);
}

/** A configuration value with the time admin last changed it (null: never changed since it was seeded). */
export interface SystemConfigChange {
  value: unknown;
  updated_at: string | null;
}

/**
 * Whether `incoming` replaces the copy a service holds (ADR 0052). Changes reach a service out of
 * order (a retried event, two changes handled at once, the start-up read racing an event), so the
 * later change wins whatever order its copies arrive in. A copy held without a change time (stored
 * before times were kept) gives way to whatever admin says; a value admin never changed gives way to
 * any change; at equal times a value never replaces itself, and of two different values the one
 * whose JSON text sorts last wins, so every service settles on the same value.
 */
export function supersedesConfig(incoming: SystemConfigChange, stored: SystemConfigChange | null): boolean {
  if (stored === null || stored.updated_at === null) return true;
  if (incoming.updated_at === null) return false;
  const incomingAt = Date.parse(incoming.updated_at);
  const storedAt = Date.parse(stored.updated_at);
  if (incomingAt !== storedAt) return incomingAt > storedAt;
  return JSON.stringify(incoming.value) > JSON.stringify(stored.value);
}
