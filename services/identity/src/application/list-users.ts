import { decodeCursor, isUuid, problems, toPage } from '@market/shared';
import { normalizePhone } from '../domain/phone';
import { findUsersPage, type UserFilters } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';
import { toUserAdminView } from './user-views';

function keysetPosition(cursor: string | undefined) {
  const position = decodeCursor(cursor);
  if (!position) return null;
  if (typeof position.v !== 'string' || Number.isNaN(Date.parse(position.v)) || !isUuid(position.id)) {
    throw problems.validation([{ path: 'query.cursor', message: 'cursor is not valid' }]);
  }
  return { created_at: position.v, id: position.id };
}

export async function listUsers(deps: IdentityDeps, query: UserFilters & { limit: number; cursor?: string }) {
  const { limit, cursor, phone, ...filters } = query;
  const rows = await findUsersPage(
    deps.db.manager,
    { ...filters, ...(phone !== undefined ? { phone: normalizePhone(phone) } : {}) },
    keysetPosition(cursor),
    limit,
  );
  return toPage(rows, limit, (user) => ({ v: user.created_at.toISOString(), id: user.id }), toUserAdminView);
}
