import dayjs from 'dayjs';
import { isSystemConfigKey, type SystemConfigKey } from '@market/contracts';
import { t } from '../i18n';

/** Integer fen as yuan with two decimals. */
export const yuan = (fen: number | null | undefined) => (fen == null ? '—' : `¥${(fen / 100).toFixed(2)}`);
export const when = (iso: string | null | undefined) => (iso ? dayjs(iso).format('YYYY-MM-DD HH:mm:ss') : '—');

/** The unit each config value is kept in (the key's name and schema in the contracts say it). */
const CONFIG_UNITS: Record<SystemConfigKey, 'minutes' | 'hours' | 'days' | 'fen' | 'bps' | 'boolean' | 'count'> = {
  'order.payment_timeout_minutes': 'minutes',
  'order.handoff_timeout_minutes': 'minutes',
  'order.receive_timeout_minutes': 'minutes',
  'order.checkout_grace_minutes': 'minutes',
  'order.checkout_confirm_timeout_minutes': 'minutes',
  'order.correction_confirm_timeout_minutes': 'minutes',
  'platform.commission_rate_bps': 'bps',
  'order.require_realname': 'boolean',
  'withdrawal.min_amount': 'fen',
  'withdrawal.daily_limit': 'fen',
  'withdrawal.auto_approve_below': 'fen',
  'order.dispute_timeout_hours': 'hours',
  'order.abnormal_timeout_hours': 'hours',
  'order.renewal_min_remaining_minutes': 'minutes',
  'order.end_reminder_minutes': 'minutes',
  'renter.trusted_after_orders': 'count',
  'renter.new_max_active': 'count',
  'renter.new_max_daily': 'count',
  'renter.new_balance_exempt': 'fen',
  'rating.window_days': 'days',
  'order.grace_minutes': 'minutes',
};

/** A config value as an operator reads it: fen as ¥, timeouts in minutes or hours, a rate in % (bps beside it). */
export function configValue(key: string, value: unknown): string {
  const unit = isSystemConfigKey(key) ? CONFIG_UNITS[key] : undefined;
  if (typeof value === 'boolean') return t(value ? 'unit.yes' : 'unit.no');
  if (typeof value !== 'number' || !unit) return JSON.stringify(value);
  if (unit === 'fen') return yuan(value);
  if (unit === 'minutes') return t('unit.minutes', { count: value });
  if (unit === 'hours') return t('unit.hours', { count: value });
  if (unit === 'days') return t('unit.days', { count: value });
  if (unit === 'bps') return `${(value / 100).toFixed(2)}% (${value} bps)`;
  return String(value);
}

/** What a config key means, with its unit, in the current language. */
export const configDescription = (key: string, fallback: string) => (isSystemConfigKey(key) ? t(`configKey.${key}`) : fallback);
