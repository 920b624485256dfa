import { isUuid } from '@market/shared/db';
import { UserNotFound } from '../domain/errors';
import { findUserById } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';

/** Whether a user may rent: orders refuses frozen users and, when configured, unverified ones. */
export async function readUserStanding(deps: IdentityDeps, id: string) {
  const user = isUuid(id) ? await findUserById(deps.db, id) : undefined;
  if (!user) throw new UserNotFound();
  return { user_id: user.id, frozen: user.frozen, realname_status: user.realname_status };
}
