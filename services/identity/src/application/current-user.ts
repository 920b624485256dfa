import { isUuid, type Queryable } from '@market/shared/db';
import { Unauthenticated } from '@market/shared/errors';
import { findUserById } from '../persistence/user-repository';

/** The user behind a verified token; a token whose user does not exist is not a valid login. */
export async function requireCurrentUser(db: Queryable, userId: string) {
  const user = isUuid(userId) ? await findUserById(db, userId) : undefined;
  if (!user) throw new Unauthenticated('the user of this token does not exist');
  return user;
}
