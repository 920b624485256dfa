import type { CursorPosition } from '@market/shared';
import type { Queryable } from '@market/shared';

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
export async function insertAuditLog(q: Queryable, entry: NewAuditLog) {
  await q.query(
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

/** Newest first, keyset-paged on (created_at, id); fetches `limit + 1` rows to tell whether a page follows. */
export async function findAuditLogs(q: Queryable, filter: AuditLogFilter, after: CursorPosition | null, limit: number): Promise<AuditLogRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const column of ['actor_id', 'action', 'biz_type'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  if (after) {
    params.push(after.v, after.id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(limit + 1);
  return q.query(
    `SELECT id, actor_type, actor_id, action, biz_type, biz_id, detail, ip, result, request_id, created_at
     FROM audit_logs
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, id DESC
     LIMIT $${params.length}`,
    params,
  );
}
