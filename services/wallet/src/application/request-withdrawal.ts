import { type RouteBody, type requestWithdrawal as requestRoute } from '@market/contracts';
import { type UserIdentity } from '@market/shared/auth';
import { Forbidden } from '@market/shared/errors';
import { recordAudit } from '@market/shared/events';
import { v7 as uuidv7 } from 'uuid';
import { userAvailable, withdrawalHold } from '../domain/accounts';
import { ChannelUnavailable, InsufficientBalance, PayeeFrozen, PayeeNameMismatch, RealNameRequired } from '../domain/errors';
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
  if (!payouts) throw new ChannelUnavailable(`withdrawals to ${body.channel} are not enabled`);
  const payee = await deps.payees.check(identity.sub, body.payee_name);
  if (!payee) throw new Forbidden('unknown user');
  if (payee.frozen) throw new PayeeFrozen();
  if (payee.realnameStatus !== 'verified') throw new RealNameRequired();
  if (!payee.nameMatches) throw new PayeeNameMismatch();
  const limits = await deps.withdrawalSettings.limits();

  const row = await deps.db.transaction(async (tx) => {
    const now = new Date();
    const id = uuidv7();
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
    try {
      await recordTransfers(
        tx,
        [{ from: userAvailable(identity.sub), to: withdrawalHold(id), amount: body.amount, bizType: 'withdrawal', orderId: null, paymentId: null, withdrawalId: id }],
        now,
      );
    } catch (err) {
      if (err instanceof InsufficientFunds) {
        throw new InsufficientBalance(err.balance, body.amount, 'withdraw');
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
