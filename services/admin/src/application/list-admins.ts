import type { Admin, z } from '@market/contracts';
import type { AdminStatus } from '../domain/admin-user';
import { findAdminsPage } from '../persistence/admin-users';
import type { AdminDeps } from './deps';
import { adminView } from './views';

export interface AdminListQuery {
  status?: AdminStatus;
  limit: number;
  cursor?: string;
}

export async function listAdmins(
  deps: Pick<AdminDeps, 'db'>,
  query: AdminListQuery,
): Promise<{ items: z.infer<typeof Admin>[]; next_cursor: string | null }> {
  const page = await findAdminsPage(deps.db, query.status, { cursor: query.cursor, limit: query.limit });
  return { items: page.items.map(adminView), next_cursor: page.next_cursor };
}
