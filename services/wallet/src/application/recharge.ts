import { type RouteBody, type startRecharge as startRechargeRoute } from '@market/contracts';
import { type Identity, type UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { auditRefusal } from '@market/shared/events';
import { problems } from '@market/shared/http';
import { v7 as uuidv7 } from 'uuid';
import { rechargeAmountError, type PaymentOutcome } from '../domain/payment';
import { findPayment, insertPayment, overduePaymentIds } from '../persistence/payment-repository';
import type { WalletDeps } from './deps';
import { toPaymentView } from './payment-view';
import type { GatewayPayment } from './ports';
import { settlePayment } from './settle-payment';

/** Opens a recharge at the gateway; the wallet is credited when the gateway says it was paid. */
export async function startRecharge(deps: WalletDeps, identity: UserIdentity, body: RouteBody<typeof startRechargeRoute>) {
  const refused = rechargeAmountError(body.amount, deps.recharge);
  if (refused) throw problems.validation([{ path: 'amount', message: refused }]);
  const id = uuidv7();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + deps.recharge.expiryMinutes * 60_000);
  const { payUrl } = await deps.gateway.createPayment({ paymentId: id, amount: body.amount, channel: body.channel, expiresAt });
  const row = await insertPayment(deps.db, {
    id,
    user_id: identity.sub,
    amount: body.amount,
    channel: body.channel,
    provider: deps.gateway.provider,
    pay_url: payUrl,
    expires_at: expiresAt,
    created_at: now,
  });
  return toPaymentView(row);
}

function outcomeOf(state: GatewayPayment | null): PaymentOutcome | null {
  if (state?.status === 'succeeded') return 'succeeded';
  if (state?.status === 'failed') return 'failed';
  return null;
}

/** An amount the gateway reports that is not the payment's is never credited; it is audited for an operator. */
export async function auditAmountMismatch(deps: WalletDeps, identity: Identity | null, paymentId: string, detail: Record<string, unknown>) {
  deps.log.warn({ payment_id: paymentId, ...detail }, 'payment gateway reported another amount; not credited');
  await auditRefusal(deps.db, deps.events, identity, {
    action: 'payment.amount_mismatch',
    biz_type: 'payment',
    biz_id: paymentId,
    detail,
  });
}

/** The payer asks: the gateway is queried and a final answer applied (credited at most once). */
export async function queryRecharge(deps: WalletDeps, identity: UserIdentity, id: string) {
  const row = isUuid(id) ? await findPayment(deps.db, id) : null;
  if (!row || row.user_id !== identity.sub) throw problems.notFound('payment not found');
  if (row.status !== 'pending') return toPaymentView(row);
  const state = await deps.gateway.queryPayment(id);
  const outcome = outcomeOf(state);
  if (!state || !outcome) return toPaymentView(row);
  if (state.amount !== Number(row.amount)) {
    await auditAmountMismatch(deps, identity, id, { source: 'query', expected: Number(row.amount), reported: state.amount });
    return toPaymentView(row);
  }
  const settled = await settlePayment(deps, id, { outcome, gatewayTxnId: state.gatewayTxnId, paidAt: state.paidAt });
  return toPaymentView(settled ?? row);
}

/**
 * Pending payments past `expires_at` are closed at the gateway first: one the payer managed to pay
 * meanwhile is credited, a failed one fails, the rest expire. Safe on several replicas: each move
 * happens under the payment's row lock, and a payment already moved is left alone.
 */
export async function expireOverduePayments(deps: WalletDeps, now = new Date()): Promise<number> {
  const ids = await overduePaymentIds(deps.db, now, 100);
  for (const id of ids) {
    const row = await findPayment(deps.db, id);
    if (!row || row.status !== 'pending') continue;
    const state = await deps.gateway.closePayment(id);
    const outcome = outcomeOf(state) ?? 'expired';
    if (outcome === 'succeeded' && state!.amount !== Number(row.amount)) {
      await auditAmountMismatch(deps, null, id, { source: 'expiry', expected: Number(row.amount), reported: state!.amount });
      continue;
    }
    await settlePayment(deps, id, { outcome, gatewayTxnId: state?.gatewayTxnId ?? null, paidAt: state?.paidAt ?? null });
  }
  return ids.length;
}
