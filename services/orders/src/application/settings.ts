import { isSystemConfigKey, supersedesConfig, SYSTEM_CONFIG_DEFAULTS, SYSTEM_CONFIG_SCHEMAS, type SystemConfigChange } from '@market/contracts';
import { type Queryable, type Tx } from '@market/shared/db';
import type { OrderSettings } from '../domain/settings';
import { TIMED_STATES, statesTimedBy, thresholdMs } from '../domain/timeouts';
import { rescheduleDeadlines } from '../persistence/order-repository';
import { announceSettingsChange, insertSetting, lockSetting, readSettingRows, updateSetting } from '../persistence/settings-repository';
import type { OrdersDeps } from './deps';

/** The settings in force, read now: orders' stored copy over the defaults; a value that does not parse is ignored. Uses go through `SettingsCache`. */
export async function readCurrentSettings(db: Queryable): Promise<OrderSettings> {
  const settings: Record<string, unknown> = { ...SYSTEM_CONFIG_DEFAULTS };
  for (const row of await readSettingRows(db)) {
    if (isSystemConfigKey(row.key) && SYSTEM_CONFIG_SCHEMAS[row.key].safeParse(row.value).success) settings[row.key] = row.value;
  }
  return settings as unknown as OrderSettings;
}

/**
 * Stores one configuration value unless the stored copy is as new or newer (ADR 0052: a late older
 * change, from a retried event or the start-up read, must not undo a newer one) and, for a timeout
 * threshold, moves the deadline of every order waiting on it, so the scan (which reads only
 * `deadline_at`) applies the new threshold at once. Keys orders does not use are ignored. The stored
 * copy is locked, so of two changes handled at once the later one is the one that stays. A stored
 * change tells every replica's `SettingsCache` at commit.
 */
export async function applySetting(tx: Tx, deps: Pick<OrdersDeps, 'minuteMs' | 'settings'>, key: string, change: SystemConfigChange): Promise<boolean> {
  if (!isSystemConfigKey(key) || !SYSTEM_CONFIG_SCHEMAS[key].safeParse(change.value).success) return false;
  if (!(await insertSetting(tx, key, change))) {
    if (!supersedesConfig(change, await lockSetting(tx, key))) return false;
    await updateSetting(tx, key, change);
  }
  await announceSettingsChange(tx, deps.settings.channel);
  for (const status of statesTimedBy(key)) {
    const timed = TIMED_STATES[status]!;
    await rescheduleDeadlines(tx, status, timed.since, thresholdMs(timed, change.value as number, deps.minuteMs));
  }
  return true;
}

/** Reads every value from the admin service and applies them together. */
export async function loadSettingsFromAdmin(deps: Pick<OrdersDeps, 'db' | 'configSource' | 'minuteMs' | 'settings'>) {
  const items = await deps.configSource.values();
  await deps.db.transaction(async (tx) => {
    for (const item of items) await applySetting(tx, deps, item.key, item);
  });
}
