import { type AdminIdentity, type UserIdentity } from '@market/shared/auth';
import { isUuid, type Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { NotFound } from '@market/shared/errors';
import { PayeeFrozenSinceRequest } from '../domain/errors';
import { openPayeeName } from '../persistence/sealed-payee';
import { findWithdrawal, type WithdrawalRow } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { moveWithdrawal } from './move-withdrawal';
import { sendWithdrawal } from './send-withdrawal';
import { toWithdrawalView } from './withdrawal-view';

async function locked(deps: WalletDeps, id: string, decide: (row: WithdrawalRow, tx: Tx) => Promise<WithdrawalRow>, owner?: string) {
  if (!isUuid(id)) throw new NotFound('withdrawal not found');
  return deps.db.transaction(async (tx) => {
    const row = await findWithdrawal(tx, id, true);
    if (!row || (owner !== undefined && row.user_id !== owner)) throw new NotFound('withdrawal not found');
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
  await locked(deps, id, async (row, tx) => {
    const now = new Date();
    const moved = await moveWithdrawal(deps, tx, row, 'approve', { decided_by: admin.sub, decided_at: now, next_check_at: now }, admin.sub);
    await recordAudit(deps.events, tx, admin, { action: 'withdrawal.approve', biz_type: 'withdrawal', biz_id: id, detail: { amount: Number(row.amount), user_id: row.user_id } });
    return moved;
  });
  return toWithdrawalView(await sendWithdrawal(deps, id));
}

export async function rejectWithdrawal(deps: WalletDeps, admin: AdminIdentity, id: string, reason: string) {
  const row = await locked(deps, id, async (found, tx) => {
    const moved = await moveWithdrawal(deps, tx, found, 'reject', { decided_by: admin.sub, decided_at: new Date(), reason }, admin.sub);
    await recordAudit(deps.events, tx, admin, { action: 'withdrawal.reject', biz_type: 'withdrawal', biz_id: id, detail: { amount: Number(found.amount), user_id: found.user_id, reason } });
    return moved;
  });
  return toWithdrawalView(row);
}

/** The requester takes back a withdrawal nobody decided yet; the hold returns to available. */
export async function cancelWithdrawal(deps: WalletDeps, identity: UserIdentity, id: string) {
  const row = await locked(deps, id, (found, tx) => moveWithdrawal(deps, tx, found, 'cancel', {}, identity.sub), identity.sub);
  return toWithdrawalView(row);
}
