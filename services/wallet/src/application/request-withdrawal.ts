import { type RouteBody, type requestWithdrawal as requestRoute } from '@market/contracts';
import { type UserIdentity } from '@market/shared/auth';
import { recordAudit } from '@market/shared/events';
import { Problem, problems } from '@market/shared/http';
import { v7 as uuidv7 } from 'uuid';
import { userAvailable, withdrawalHold } from '../domain/accounts';
import { InsufficientFunds } from '../domain/ledger';
import { autoApproved, withdrawalLimitError } from '../domain/withdrawal';
import { recordTransfers } from '../persistence/ledger-repository';
import { sealPayee } from '../persistence/sealed-payee';
import { insertWithdrawal, requestedSince } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { moveWithdrawal } from './move-withdrawal';
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
  if (!payouts) throw new Problem(400, 'CHANNEL_UNAVAILABLE', `withdrawals to ${body.channel} are not enabled`);
  const payee = await deps.payees.check(identity.sub, body.payee_name);
  if (!payee) throw problems.forbidden('unknown user');
  if (payee.frozen) throw problems.userFrozen();
  if (payee.realnameStatus !== 'verified') throw new Problem(403, 'REALNAME_REQUIRED', 'withdrawals need a verified real name');
  if (!payee.nameMatches) throw problems.unprocessable('PAYEE_NAME_MISMATCH', 'the payee name must be your verified real name');
  const limits = await deps.withdrawalSettings.limits();

  const row = await deps.db.transaction(async (tx) => {
    const now = new Date();
    const id = uuidv7();
    // Locks the user's available account first: two requests of one user queue here.
    await tx.query(`SELECT 1 FROM accounts WHERE key = $1 FOR UPDATE`, [userAvailable(identity.sub).key]);
    const refused = withdrawalLimitError(body.amount, await requestedSince(tx, identity.sub, startOfUtcDay(now)), limits);
    if (refused) throw problems.unprocessable(refused.code, refused.detail);
    const inserted = await insertWithdrawal(tx, {
      id,
      user_id: identity.sub,
      amount: body.amount,
      channel: body.channel,
      ...sealPayee(deps.secrets, id, { account: body.payee_account, name: body.payee_name }),
      created_at: now,
    });
    try {
      await recordTransfers(
        tx,
        [{ from: userAvailable(identity.sub), to: withdrawalHold(id), amount: body.amount, bizType: 'withdrawal', orderId: null, paymentId: null, withdrawalId: id }],
        now,
      );
    } catch (err) {
      if (err instanceof InsufficientFunds) {
        throw problems.conflict(`available balance ${err.balance} is less than the ${body.amount} to withdraw`, 'INSUFFICIENT_BALANCE');
      }
      throw err;
    }
    await deps.events.publish(tx, 'withdrawal.requested', toWithdrawalView(inserted));
    if (!autoApproved(body.amount, limits)) return inserted;
    await recordAudit(deps.events, tx, identity, {
      action: 'withdrawal.auto_approve',
      biz_type: 'withdrawal',
      biz_id: id,
      detail: { amount: body.amount, below: limits.autoApproveBelow },
    });
    return moveWithdrawal(deps, tx, inserted, 'auto_approve', { decided_at: now, next_check_at: now }, null);
  });
  if (row.status !== 'processing') return toWithdrawalView(row);
  return toWithdrawalView(await sendWithdrawal(deps, row.id));
}
