import { isUuid, problems, type EntityManager } from '@market/shared';
import { findUserById } from '../persistence/user-repository';

/** The user behind a verified token; a token whose user does not exist is not a valid login. */
export async function requireCurrentUser(manager: EntityManager, userId: string) {
  const user = isUuid(userId) ? await findUserById(manager, userId) : undefined;
  if (!user) throw problems.unauthenticated('the user of this token does not exist');
  return user;
}
