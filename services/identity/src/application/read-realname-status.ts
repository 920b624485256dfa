import { findRealname } from '../persistence/realname-repository';
import { requireCurrentUser } from './current-user';
import type { IdentityDeps } from './deps';
import { NO_REALNAME, toRealnameView } from './realname-view';

export async function readRealnameStatus(deps: IdentityDeps, userId: string) {
  const user = await requireCurrentUser(deps.db, userId);
  const row = await findRealname(deps.db, user.id);
  return row ? toRealnameView(deps.secrets, row) : NO_REALNAME;
}
