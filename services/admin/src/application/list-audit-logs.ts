import { decodeCursor, isUuid, problems, toPage, type AuditLog, type z } from '@market/shared';
import { findAuditLogs, type AuditLogFilter } from '../persistence/audit-logs';
import type { AdminApp } from './admin-app';
import { auditLogView } from './views';

export interface AuditLogQuery extends AuditLogFilter {
  limit: number;
  cursor?: string;
}

export async function listAuditLogs(
  app: Pick<AdminApp, 'db'>,
  query: AuditLogQuery,
): Promise<{ items: z.infer<typeof AuditLog>[]; next_cursor: string | null }> {
  const after = decodeCursor(query.cursor);
  if (after && (!isUuid(after.id) || typeof after.v !== 'string' || Number.isNaN(Date.parse(after.v)))) {
    throw problems.validation([{ path: 'query.cursor', message: 'cursor is not valid' }]);
  }
  const rows = await findAuditLogs(app.db, query, after, query.limit);
  return toPage(rows, query.limit, (row) => ({ v: row.created_at.toISOString(), id: row.id }), auditLogView);
}
