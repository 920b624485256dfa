import { type AdminIdentity, type UserIdentity } from '@market/shared/auth';
import { isUuid, type Tx } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { PayeeFrozenSinceRequest } from '../domain/errors';
import { openPayeeName } from '../persistence/sealed-payee';
import { findWithdrawal, type WithdrawalRow } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { moveWithdrawal } from './move-withdrawal';
import { sendWithdrawal } from './send-withdrawal';
import { toWithdrawalView } from './withdrawal-view';

async function locked<T>(deps: WalletDeps, id: string, decide: (row: WithdrawalRow, tx: Tx) => Promise<T>) {
  if (!isUuid(id)) throw new NotFound('withdrawal not found');
  return deps.db.transaction(async (tx) => {
    const row = await findWithdrawal(tx, id, true);
    if (!row) throw new NotFound('withdrawal not found');
    return decide(row, tx);
  });
}

/**
 * The back office approves: the move and its audit entry commit together, then the transfer is sent
 * once. A user frozen since the request is not paid out (409 USER_FROZEN): reject it or wait.
 */
export async function approveWithdrawal(deps: WalletDeps, admin: AdminIdentity, id: string) {
  const found = isUuid(id) ? await findWithdrawal(deps.db, id) : null;
  if (!found) throw new NotFound('withdrawal not found');
  if (found.status === 'pending_review' && (await deps.payees.check(found.user_id, openPayeeName(deps.secrets, found)))?.frozen) {
    throw new PayeeFrozenSinceRequest();
  }
  const { row, send } = await locked(deps, id, (row, tx) => moveWithdrawal(deps, tx, row, { name: 'approve' }, { kind: 'admin', id: admin.sub }, admin));
  return toWithdrawalView(send ? await sendWithdrawal(deps, id) : row);
}

export async function rejectWithdrawal(deps: WalletDeps, admin: AdminIdentity, id: string, reason: string) {
  const { row } = await locked(deps, id, (found, tx) => moveWithdrawal(deps, tx, found, { name: 'reject', reason }, { kind: 'admin', id: admin.sub }, admin));
  return toWithdrawalView(row);
}

/** The requester takes back a withdrawal nobody decided yet; the hold returns to available. Another user's is not found. */
export async function cancelWithdrawal(deps: WalletDeps, identity: UserIdentity, id: string) {
  const { row } = await locked(deps, id, (found, tx) => moveWithdrawal(deps, tx, found, { name: 'cancel' }, { kind: 'user', id: identity.sub }, identity));
  return toWithdrawalView(row);
}
