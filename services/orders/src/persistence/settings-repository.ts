import type { EntityManager, Queryable } from '@market/shared/db';

/** Orders' copy of the admin service's configuration, kept by `system_config.changed`. */
export async function readSettingRows(q: Queryable): Promise<Array<{ key: string; value: unknown }>> {
  return q.query(`SELECT key, value FROM system_settings`);
}

export async function writeSetting(manager: EntityManager, key: string, value: unknown) {
  await manager.query(
    `INSERT INTO system_settings (key, value, updated_at) VALUES ($1, $2::jsonb, now())
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [key, JSON.stringify(value)],
  );
}
