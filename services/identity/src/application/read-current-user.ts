import type { IdentityDeps } from './deps';
import { requireCurrentUser } from './current-user';
import { toUserView } from './user-view';

export async function readCurrentUser(deps: IdentityDeps, userId: string) {
  return toUserView(await requireCurrentUser(deps.db, userId));
}
