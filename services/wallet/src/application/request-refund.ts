import type { RouteBody, requestRefund as requestRoute, startRefund as startRoute } from '@market/contracts';
import type { AdminIdentity, Identity, UserIdentity } from '@market/shared/auth';
import { isUuid, type Tx } from '@market/shared/db';
import { DomainError, InvalidState, NotFound } from '@market/shared/errors';
import { planOrThrow } from '@market/shared/planning';
import { v7 as uuidv7 } from 'uuid';
import { userAvailable } from '../domain/accounts';
import { ChannelUnavailable, InsufficientBalance } from '../domain/errors';
import { planRefundMove, type RefundActor, type RefundMove } from '../domain/plan-refund-move';
import { refundableError, startedRefundAmount, type RefundKindName } from '../domain/refund';
import { balanceOf } from '../persistence/ledger-repository';
import { findPayment, type PaymentRow } from '../persistence/payment-repository';
import { insertRefund, refundedOf } from '../persistence/refund-repository';
import type { WalletDeps } from './deps';
import { carryOutRefundEffects } from './move-refund';
import { toRefundView } from './refund-view';
import { sendRefund } from './send-refund';

/** Refuses a recharge whose provider cannot refund in this deployment. */
function requireRefundChannel(deps: WalletDeps, payment: PaymentRow) {
  if (!deps.refunds.has(payment.provider)) throw new ChannelUnavailable(`refunds through ${payment.provider} are not enabled`);
}

/** Opens a refund of `payment` as its first move plans it, in the caller's transaction, and carries out that move's effects. */
async function open(
  deps: WalletDeps,
  tx: Tx,
  payment: PaymentRow,
  refund: { kind: RefundKindName; amount: number; reason: string | null },
  first: { move: RefundMove; actor: RefundActor; audited: Identity },
) {
  const now = new Date();
  const id = uuidv7();
  const plan = planOrThrow(planRefundMove({ id, user_id: payment.user_id, amount: refund.amount, status: null }, first.move, first.actor, now));
  const row = await insertRefund(
    tx,
    { id, payment_id: payment.id, user_id: payment.user_id, provider: payment.provider, ...refund, status: plan.next, created_at: now },
    plan.stamps,
  );
  await carryOutRefundEffects(deps, tx, row, plan.effects, first.audited, now);
  return row;
}

/**
 * A user asks for unspent money of one of their recharges back. Under the payment's lock (so racing
 * requests count each other) the amount is checked against what the recharge paid less its live
 * refunds, and against the available balance; nothing is held until finance approves.
 */
export async function requestRefund(deps: WalletDeps, identity: UserIdentity, body: RouteBody<typeof requestRoute>) {
  const found = isUuid(body.payment_id) ? await findPayment(deps.db, body.payment_id) : null;
  if (!found || found.user_id !== identity.sub) throw new NotFound('payment not found');
  requireRefundChannel(deps, found);
  const row = await deps.db.transaction(async (tx) => {
    const payment = (await findPayment(tx, found.id, true))!;
    if (payment.status !== 'succeeded') throw new InvalidState(`the recharge is ${payment.status}; only a succeeded one can be refunded`);
    const refused = refundableError(body.amount, Number(payment.amount), await refundedOf(tx, payment.id));
    if (refused) throw refused;
    const available = await balanceOf(tx, userAvailable(identity.sub).key);
    if (available < body.amount) throw new InsufficientBalance(available, body.amount, 'refund');
    const first = { move: { name: 'request' } as const, actor: { kind: 'user', id: identity.sub } as const, audited: identity };
    return open(deps, tx, payment, { kind: 'user_request', amount: body.amount, reason: body.reason ?? null }, first);
  });
  return toRefundView(row);
}

/** What the provider says was paid for a recharge the ledger never credited; refuses when nothing, or the recharge's own amount, was. */
async function mismatchedAmount(deps: WalletDeps, payment: PaymentRow): Promise<number> {
  const gateway = deps.gateways.get(payment.provider);
  if (!gateway) throw new ChannelUnavailable(`${payment.provider} is not enabled`);
  const answer = await gateway.queryPayment(payment.id);
  if (!answer || answer.status !== 'succeeded') throw new InvalidState('the provider says nothing was paid for this recharge; there is nothing to return');
  if (answer.amount === Number(payment.amount)) throw new InvalidState('the provider says the recharge’s own amount was paid; it is credited, not returned');
  return answer.amount;
}

/**
 * Finance returns money that reached the platform outside a normal recharge (ADR 0031): a recharge
 * credited after it had been given up (out of the user's available balance, whatever is not yet
 * refunded), or money paid with another amount than the recharge's, never credited (out of the
 * gateway clearing account, as much as the provider says was paid). Approved at once and sent.
 */
export async function startRefund(deps: WalletDeps, admin: AdminIdentity, body: RouteBody<typeof startRoute>) {
  const found = isUuid(body.payment_id) ? await findPayment(deps.db, body.payment_id) : null;
  if (!found) throw new NotFound('payment not found');
  requireRefundChannel(deps, found);
  const paidElsewise = body.kind === 'amount_mismatch' && found.status !== 'succeeded' ? await mismatchedAmount(deps, found) : null;
  const row = await deps.db.transaction(async (tx) => {
    const payment = (await findPayment(tx, found.id, true))!;
    const amount = startedRefundAmount(body.kind, { status: payment.status, amount: Number(payment.amount) }, await refundedOf(tx, payment.id), paidElsewise);
    if (amount instanceof DomainError) throw amount;
    const first = { move: { name: 'start' } as const, actor: { kind: 'admin', id: admin.sub } as const, audited: admin };
    return open(deps, tx, payment, { kind: body.kind, amount, reason: body.reason }, first);
  });
  return toRefundView(await sendRefund(deps, row.id));
}
