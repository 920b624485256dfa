import { type InternalInput, type payeeCheck } from '@market/contracts';
import { sealedAt } from '@market/shared/crypto';
import { isUuid } from '@market/shared/db';
import { UserNotFound } from '../domain/errors';
import { findRealname, REAL_NAME_SEALED } from '../persistence/realname-repository';
import { findUserById } from '../persistence/user-repository';
import type { IdentityDeps } from './deps';

const normalized = (name: string) => name.normalize('NFC').replace(/\s+/g, '');

/**
 * For the wallet's payouts: whether money may go to an account in `name` for this user. The verified
 * real name is opened only to compare it here; it never leaves the service.
 */
export async function checkPayee(deps: IdentityDeps, id: string, body: InternalInput<typeof payeeCheck>['body']) {
  const user = isUuid(id) ? await findUserById(deps.db, id) : undefined;
  if (!user) throw new UserNotFound();
  const row = user.realname_status === 'verified' ? await findRealname(deps.db, user.id) : undefined;
  const matches =
    row?.status === 'verified' && normalized(deps.secrets.open(row.real_name_sealed, sealedAt(REAL_NAME_SEALED, row.user_id))) === normalized(body.name);
  return { user_id: user.id, frozen: user.frozen, realname_status: user.realname_status, name_matches: matches };
}
