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

/**
 * The change time is whole milliseconds (what the event and the internal route carry) and later than
 * the key's previous change, even within one millisecond: services keep the value with the latest
 * change time (ADR 0052), so two changes of a key must never share one. Called with the row locked.
 */
export async function writeSystemConfig(db: Queryable, key: string, value: unknown, updatedBy: string): Promise<SystemConfigRow> {
  const rows = await updateReturning<SystemConfigRow>(
    db,
    `UPDATE system_configs SET value = $2::jsonb, updated_by = $3,
       updated_at = GREATEST(date_trunc('milliseconds', clock_timestamp()), updated_at + interval '1 millisecond')
     WHERE key = $1 RETURNING ${COLUMNS}`,
    [key, JSON.stringify(value), updatedBy],
  );
  return rows[0]!;
}
