import { decodeCursor, isUuid, problems, toPage, type Admin, type z } from '@market/shared';
import type { AdminStatus } from '../domain/admin-user';
import { findAdminsPage } from '../persistence/admin-users';
import type { AdminApp } from './admin-app';
import { adminView } from './views';

export interface AdminListQuery {
  status?: AdminStatus;
  limit: number;
  cursor?: string;
}

export async function listAdmins(
  app: Pick<AdminApp, 'db'>,
  query: AdminListQuery,
): Promise<{ items: z.infer<typeof Admin>[]; next_cursor: string | null }> {
  const after = decodeCursor(query.cursor);
  if (after && (!isUuid(after.id) || typeof after.v !== 'string' || Number.isNaN(Date.parse(after.v)))) {
    throw problems.validation([{ path: 'query.cursor', message: 'cursor is not valid' }]);
  }
  const rows = await findAdminsPage(app.db, query.status, after && { created_at: after.v as string, id: after.id }, query.limit);
  return toPage(rows, query.limit, (row) => ({ v: row.created_at.toISOString(), id: row.id }), adminView);
}
