import { updateReturning, type Queryable, type Tx } from '@market/shared/db';

export interface SystemConfigRow {
  key: string;
  value: unknown;
  description: string;
  updated_at: Date | null;
  updated_by: string | null;
}

const COLUMNS = 'key, value, description, updated_at, updated_by';

export async function listSystemConfigRows(db: Queryable): Promise<SystemConfigRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM system_configs ORDER BY key`);
}

export async function lockSystemConfig(tx: Tx, key: string): Promise<SystemConfigRow | null> {
  const rows: SystemConfigRow[] = await tx.query(`SELECT ${COLUMNS} FROM system_configs WHERE key = $1 FOR UPDATE`, [key]);
  return rows[0] ?? null;
}

export async function writeSystemConfig(db: Queryable, key: string, value: unknown, updatedBy: string): Promise<SystemConfigRow> {
  const rows = await updateReturning<SystemConfigRow>(
    db,
    `UPDATE system_configs SET value = $2::jsonb, updated_by = $3, updated_at = clock_timestamp() WHERE key = $1 RETURNING ${COLUMNS}`,
    [key, JSON.stringify(value), updatedBy],
  );
  return rows[0]!;
}
