import type { SystemConfigChange } from '@market/contracts';
import type { Queryable, Tx } from '@market/shared/db';

/** Orders' copy of the admin service's configuration, kept by `system_config.changed`. */
export async function readSettingRows(db: Queryable): Promise<Array<{ key: string; value: unknown }>> {
  return db.query(`SELECT key, value FROM system_settings`);
}

/** Stores the first copy of a key; false when the key has one already (a concurrent first copy is waited for). */
export async function insertSetting(tx: Tx, key: string, change: SystemConfigChange): Promise<boolean> {
  const rows: unknown[] = await tx.query(
    `INSERT INTO system_settings (key, value, changed_at, updated_at) VALUES ($1, $2::jsonb, $3, now())
     ON CONFLICT (key) DO NOTHING RETURNING key`,
    [key, JSON.stringify(change.value), change.updated_at],
  );
  return rows.length > 0;
}

/** The stored copy of a key, locked to the end of the transaction, with the time admin changed it. */
export async function lockSetting(tx: Tx, key: string): Promise<SystemConfigChange | null> {
  const rows: Array<{ value: unknown; changed_at: Date | null }> = await tx.query(`SELECT value, changed_at FROM system_settings WHERE key = $1 FOR UPDATE`, [key]);
  const row = rows[0];
  return row ? { value: row.value, updated_at: row.changed_at?.toISOString() ?? null } : null;
}

export async function updateSetting(tx: Tx, key: string, change: SystemConfigChange) {
  await tx.query(`UPDATE system_settings SET value = $2::jsonb, changed_at = $3, updated_at = now() WHERE key = $1`, [
    key,
    JSON.stringify(change.value),
    change.updated_at,
  ]);
}

/** Tells every replica listening on `channel` that the stored copy changed, when the transaction commits (never if it rolls back). */
export async function announceSettingsChange(tx: Tx, channel: string) {
  await tx.query(`SELECT pg_notify($1, '')`, [channel]);
}
