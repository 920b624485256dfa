import { normalizePhone } from '../domain/phone';
import { findUsersPage, type UserFilters } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { toUserAdminView } from './user-view';

export async function listUsers(deps: IdentityDeps, query: UserFilters & { limit: number; cursor?: string }) {
  const { limit, cursor, phone, ...filters } = query;
  const { items, next_cursor } = await findUsersPage(
    deps.db,
    { ...filters, ...(phone !== undefined ? { phone: normalizePhone(phone) } : {}) },
    { limit, cursor },
  );
  return { items: items.map(toUserAdminView), next_cursor };
}
