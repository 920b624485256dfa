import { z } from '@market/contracts';
import { type Queryable, type Tx } from '@market/shared/db';
import { DEFAULT_SETTINGS, isSettingKey, type OrderSettings, type SettingKey } from '../domain/settings';
import { TIMED_STATES, statesTimedBy } from '../domain/timeouts';
import { rescheduleDeadlines } from '../persistence/order-repository';
import { readSettingRows, writeSetting } from '../persistence/settings-repository';
import type { OrdersDeps } from './deps';

const Minutes = z.number().int().min(1);
const SETTING_SCHEMAS: Record<SettingKey, z.ZodType> = {
  'order.payment_timeout_minutes': Minutes,
  'order.handoff_timeout_minutes': Minutes,
  'order.receive_timeout_minutes': Minutes,
  'order.checkout_grace_minutes': Minutes,
  'order.checkout_confirm_timeout_minutes': Minutes,
  'order.correction_confirm_timeout_minutes': Minutes,
  'platform.commission_rate_bps': z.number().int().min(0).max(10_000),
  'order.require_realname': z.boolean(),
};

/** The settings in force: orders' stored copy over the defaults; a value that does not parse is ignored. */
export async function currentSettings(db: Queryable): Promise<OrderSettings> {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const row of await readSettingRows(db)) {
    if (isSettingKey(row.key) && SETTING_SCHEMAS[row.key].safeParse(row.value).success) settings[row.key] = row.value;
  }
  return settings as unknown as OrderSettings;
}

/**
 * Stores one configuration value and, for a timeout threshold, moves the deadline of every order
 * waiting on it, so the scan (which reads only `deadline_at`) applies the new threshold at once.
 * Keys orders does not use are ignored.
 */
export async function applySetting(tx: Tx, minuteMs: number, key: string, value: unknown): Promise<boolean> {
  if (!isSettingKey(key) || !SETTING_SCHEMAS[key].safeParse(value).success) return false;
  await writeSetting(tx, key, value);
  for (const status of statesTimedBy(key)) {
    await rescheduleDeadlines(tx, status, TIMED_STATES[status]!.since, (value as number) * minuteMs);
  }
  return true;
}

/** Reads every value from the admin service and applies them together. */
export async function loadSettingsFromAdmin(deps: Pick<OrdersDeps, 'db' | 'configSource' | 'minuteMs'>) {
  const items = await deps.configSource.values();
  await deps.db.transaction(async (tx) => {
    for (const item of items) await applySetting(tx, deps.minuteMs, item.key, item.value);
  });
}
