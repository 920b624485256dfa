import { type RouteBody, type resolveWithdrawal as resolveRoute } from '@market/contracts';
import { type AdminIdentity, type UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { DependencyFailed, NotFound } from '@market/shared/errors';
import { planOrThrow } from '@market/shared/planning';
import { ChannelUnavailable, PayeeCanStillConfirm, PayeeFrozenSinceRequest, ProviderSaysPaid } from '../domain/errors';
import { planWithdrawalMove, type WithdrawalMove } from '../domain/plan-withdrawal-move';
import { openPayeeName } from '../persistence/sealed-payee';
import { findWithdrawal } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { WITHDRAWAL_MOVES } from './move-withdrawal';
import { applyAnswer, sendWithdrawal } from './send-withdrawal';
import { toWithdrawalView } from './withdrawal-view';

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
  const { row, send } = await WITHDRAWAL_MOVES.moveLocked(deps, id, { name: 'approve' }, { kind: 'admin', id: admin.sub }, admin);
  return toWithdrawalView(send ? await sendWithdrawal(deps, id) : row);
}

export async function rejectWithdrawal(deps: WalletDeps, admin: AdminIdentity, id: string, reason: string) {
  const { row } = await WITHDRAWAL_MOVES.moveLocked(deps, id, { name: 'reject', reason }, { kind: 'admin', id: admin.sub }, admin);
  return toWithdrawalView(row);
}

/** The requester takes back a withdrawal nobody decided yet; the hold returns to available. Another user's is not found. */
export async function cancelWithdrawal(deps: WalletDeps, identity: UserIdentity, id: string) {
  const { row } = await WITHDRAWAL_MOVES.moveLocked(deps, id, { name: 'cancel' }, { kind: 'user', id: identity.sub }, identity);
  return toWithdrawalView(row, 'owner');
}

/**
 * Finance settles a transfer whose outcome stayed unknown, on the provider's evidence, recorded in
 * the audit entry. Before a failure is recorded the provider is asked once more: if it says paid,
 * that answer is applied and the resolution refused, so a paid transfer's hold is never given back;
 * if it cannot answer, or the payee can still confirm, the resolution waits.
 */
export async function resolveWithdrawal(deps: WalletDeps, admin: AdminIdentity, id: string, body: RouteBody<typeof resolveRoute>) {
  const found = isUuid(id) ? await findWithdrawal(deps.db, id) : null;
  if (!found) throw new NotFound('withdrawal not found');
  const evidence = { providerTransferId: body.evidence.provider_transfer_id, billLine: body.evidence.bill_line };
  const move: WithdrawalMove =
    body.outcome === 'paid' ? { name: 'resolve_paid', evidence } : { name: 'resolve_failed', evidence, reason: body.reason ?? 'resolved as failed by finance' };
  const actor = { kind: 'admin', id: admin.sub } as const;
  // a move the table refuses is refused before the provider is asked
  planOrThrow(planWithdrawalMove(found, move, actor, new Date()));
  if (move.name === 'resolve_failed') {
    const payouts = deps.payouts.get(found.channel);
    if (!payouts) throw new ChannelUnavailable(`withdrawals to ${found.channel} are not enabled; the provider cannot be asked`);
    const answer = await payouts.query(id);
    if (answer.outcome === 'paid') {
      await applyAnswer(deps, id, answer);
      throw new ProviderSaysPaid();
    }
    if (answer.outcome === 'awaiting_payee') throw new PayeeCanStillConfirm();
    // unheard, the provider may yet say paid: a failure is recorded only on its word that nothing was paid
    if (answer.outcome === 'unknown') throw new DependencyFailed('bad_answer', `${found.channel} could not say how the transfer stands; try again shortly`);
  }
  const { row } = await WITHDRAWAL_MOVES.moveLocked(deps, id, move, actor, admin);
  return toWithdrawalView(row);
}
