import { type RouteBody, type requestWithdrawal as requestRoute } from '@market/contracts';
import { type UserIdentity } from '@market/shared/auth';
import { Forbidden } from '@market/shared/errors';
import { planOrThrow } from '@market/shared/planning';
import { v7 as uuidv7 } from 'uuid';
import { userAvailable } from '../domain/accounts';
import { ChannelUnavailable, PayeeFrozen, PayeeNameMismatch, RealNameRequired } from '../domain/errors';
import { planWithdrawalMove } from '../domain/plan-withdrawal-move';
import { autoApproved, withdrawalLimitError } from '../domain/withdrawal';
import { sealPayee } from '../persistence/sealed-payee';
import { insertWithdrawal, requestedSince } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { carryOutWithdrawalEffects, WITHDRAWAL_MOVES } from './move-withdrawal';
import { sendWithdrawal } from './send-withdrawal';
import { toWithdrawalView } from './withdrawal-view';

const startOfUtcDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

/**
 * A user asks to be paid out. Identity vouches for the payee (verified real name, that name, not
 * frozen) and admin gives the limits; then one transaction, under the user's account lock (so
 * racing requests count each other against the daily limit), holds the amount and records the
 * request. Below the auto-approval threshold it is approved in the same transaction and sent.
 */
export async function requestWithdrawal(deps: WalletDeps, identity: UserIdentity, body: RouteBody<typeof requestRoute>) {
  const payouts = deps.payouts.get(body.channel);
  if (!payouts) throw new ChannelUnavailable(`withdrawals to ${body.channel} are not enabled`);
  const payee = await deps.payees.check(identity.sub, body.payee_name);
  if (!payee) throw new Forbidden('unknown user');
  if (payee.frozen) throw new PayeeFrozen();
  if (payee.realnameStatus !== 'verified') throw new RealNameRequired();
  if (!payee.nameMatches) throw new PayeeNameMismatch();
  const limits = await deps.withdrawalSettings.limits();

  const { row, send } = await deps.db.transaction(async (tx) => {
    const now = new Date();
    const id = uuidv7();
    const requested = planOrThrow(planWithdrawalMove({ id, user_id: identity.sub, amount: body.amount, status: null }, { name: 'request' }, { kind: 'user', id: identity.sub }, now));
    // Locks the user's available account first: two requests of one user queue here.
    await tx.query(`SELECT 1 FROM accounts WHERE key = $1 FOR UPDATE`, [userAvailable(identity.sub).key]);
    const refused = withdrawalLimitError(body.amount, await requestedSince(tx, identity.sub, startOfUtcDay(now)), limits);
    if (refused) throw refused;
    const inserted = await insertWithdrawal(tx, {
      id,
      user_id: identity.sub,
      amount: body.amount,
      channel: body.channel,
      ...sealPayee(deps.secrets, id, { account: body.payee_account, name: body.payee_name }),
      created_at: now,
    });
    await carryOutWithdrawalEffects(deps, tx, inserted, requested.effects, identity, now);
    if (!autoApproved(body.amount, limits)) return { row: inserted, send: false };
    return WITHDRAWAL_MOVES.move(deps, tx, inserted, { name: 'auto_approve', below: limits.autoApproveBelow }, { kind: 'system' }, identity);
  });
  return toWithdrawalView(send ? await sendWithdrawal(deps, row.id) : row, 'owner');
}
