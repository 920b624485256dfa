import { normalizePhone } from '../domain/phone';
import { findUsersPage, type UserFilters } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { toUserAdminView } from './user-view';

export async function listUsers(deps: IdentityDeps, query: Omit<UserFilters, 'ids'> & { ids?: string; limit: number; cursor?: string }) {
  const { limit, cursor, phone, ids, ...filters } = query;
  const { items, next_cursor } = await findUsersPage(
    deps.db,
    { ...filters, ...(phone !== undefined ? { phone: normalizePhone(phone) } : {}), ...(ids !== undefined ? { ids: ids.toLowerCase().split(',') } : {}) },
    { limit, cursor },
  );
  return { items: items.map(toUserAdminView), next_cursor };
}
