import { keysetPage, NEWEST_FIRST, type KeysetPageResult, type Queryable } from '@market/shared/db';

export interface AuditLogRow {
  id: string;
  actor_type: 'admin' | 'user' | 'system';
  actor_id: string | null;
  action: string;
  biz_type: string;
  biz_id: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  result: 'success' | 'failure';
  request_id: string | null;
  created_at: Date;
}

export type NewAuditLog = Omit<AuditLogRow, 'created_at'> & { producer: string; created_at: string };

/** The event id is the row id, so a republished event is a no-op even past the inbox. */
export async function insertAuditLog(db: Queryable, entry: NewAuditLog) {
  await db.query(
    `INSERT INTO audit_logs (id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, producer, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)
     ON CONFLICT (id) DO NOTHING`,
    [
      entry.id,
      entry.actor_type,
      entry.actor_id,
      entry.action,
      entry.biz_type,
      entry.biz_id,
      JSON.stringify(entry.detail),
      entry.ip,
      entry.result,
      entry.request_id,
      entry.producer,
      entry.created_at,
    ],
  );
}

export interface AuditLogFilter {
  actor_id?: string;
  action?: string;
  biz_type?: string;
}

/** Newest first, the page after `cursor`. */
export async function findAuditLogs(
  db: Queryable,
  filter: AuditLogFilter,
  page: { limit: number; cursor: string | undefined },
): Promise<KeysetPageResult<AuditLogRow>> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const column of ['actor_id', 'action', 'biz_type'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  return keysetPage<AuditLogRow>(db, {
    query: `SELECT id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, created_at
      FROM audit_logs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
    params,
    orderBy: NEWEST_FIRST,
    ...page,
  });
}
