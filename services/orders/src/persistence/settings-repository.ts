import type { Queryable, Tx } from '@market/shared/db';

/** Orders' copy of the admin service's configuration, kept by `system_config.changed`. */
export async function readSettingRows(db: Queryable): Promise<Array<{ key: string; value: unknown }>> {
  return db.query(`SELECT key, value FROM system_settings`);
}

export async function writeSetting(tx: Tx, key: string, value: unknown) {
  await tx.query(
    `INSERT INTO system_settings (key, value, updated_at) VALUES ($1, $2::jsonb, now())
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [key, JSON.stringify(value)],
  );
}
