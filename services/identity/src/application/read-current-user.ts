import type { IdentityDeps } from './deps';
import { requireCurrentUser } from './current-user';
import { toUserView } from './user-views';

export async function readCurrentUser(deps: IdentityDeps, userId: string) {
  return toUserView(await requireCurrentUser(deps.db, userId));
}
