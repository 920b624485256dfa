import type { AuditLog, z } from '@market/contracts';
import { findAuditLogs, type AuditLogFilter } from '../persistence/audit-logs';
import type { AdminDeps } from './deps';
import { auditLogView } from './views';

export interface AuditLogQuery extends AuditLogFilter {
  limit: number;
  cursor?: string;
}

export async function listAuditLogs(
  deps: Pick<AdminDeps, 'db'>,
  query: AuditLogQuery,
): Promise<{ items: z.infer<typeof AuditLog>[]; next_cursor: string | null }> {
  const { limit, cursor, ...filter } = query;
  const { items, next_cursor } = await findAuditLogs(deps.db, filter, { limit, cursor });
  return { items: items.map(auditLogView), next_cursor };
}
