import { type RouteBody, type startRecharge as startRechargeRoute } from '@market/contracts';
import { type Identity, type UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { InvalidInput, NotFound } from '@market/shared/errors';
import { auditRefusal } from '@market/shared/events';
import { v7 as uuidv7 } from 'uuid';
import { ChannelUnavailable } from '../domain/errors';
import { resolveChannel } from '../domain/payment-channel';
import { rechargeAmountError, type PaymentOutcome } from '../domain/payment';
import { claimOverduePayments, claimPaymentsToQuery, findPayment, insertPayment, type PaymentRow } from '../persistence/payment-repository';
import type { WalletDeps } from './deps';
import { toPaymentView } from './payment-view';
import type { GatewayPayment, PaymentGateway } from './ports';
import { settlePayment } from './settle-payment';

/** Opens a recharge at the channel's gateway; the wallet is credited when the gateway says it was paid. */
export async function startRecharge(deps: WalletDeps, identity: UserIdentity, body: RouteBody<typeof startRechargeRoute>) {
  const refused = rechargeAmountError(body.amount, deps.recharge);
  if (refused) throw new InvalidInput([{ path: 'amount', message: refused }]);
  const channel = resolveChannel(deps.channels, body.channel);
  if (!channel) throw new ChannelUnavailable(`the payment channel ${body.channel} is not enabled; enabled: ${deps.channels.join(', ')}`);
  const gateway = deps.gateways.get(channel.provider)!;
  const id = uuidv7();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + deps.recharge.expiryMinutes * 60_000);
  const { payUrl, qrCode } = await gateway.createPayment({ paymentId: id, amount: body.amount, channel: channel.method, expiresAt });
  const row = await insertPayment(deps.db, {
    id,
    user_id: identity.sub,
    amount: body.amount,
    channel: channel.method,
    provider: channel.provider,
    pay_url: payUrl,
    qr_code: qrCode,
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

/**
 * A provider's payment notification that is not believed (bad signature, another app, unknown
 * payment, ...) is audited for an operator. Only the reason and our own payment id are kept: never
 * the payload, its signature or a key.
 */
export async function auditRefusedNotification(deps: WalletDeps, provider: string, reason: string, paymentId: string | null) {
  deps.log.warn({ provider, reason, payment_id: paymentId }, 'payment notification refused');
  await auditRefusal(deps.db, deps.events, null, {
    action: 'payment.notification_refused',
    biz_type: 'payment',
    biz_id: paymentId,
    detail: { provider, reason },
  });
}

/** The gateway a payment was opened at; null when its channel has since been disabled. */
function gatewayOf(deps: WalletDeps, row: PaymentRow): PaymentGateway | null {
  return deps.gateways.get(row.provider) ?? null;
}

/** Asks the payment's gateway and applies a final answer (credited at most once); a wrong amount is audited and changes nothing. */
async function queryAndApply(deps: WalletDeps, identity: Identity | null, row: PaymentRow, source: string) {
  const gateway = gatewayOf(deps, row);
  if (!gateway) return row;
  const state = await gateway.queryPayment(row.id);
  const outcome = outcomeOf(state);
  if (!state || !outcome) return row;
  if (state.amount !== Number(row.amount)) {
    await auditAmountMismatch(deps, identity, row.id, { source, expected: Number(row.amount), reported: state.amount });
    return row;
  }
  return (await settlePayment(deps, row.id, { outcome, gatewayTxnId: state.gatewayTxnId, paidAt: state.paidAt, source })) ?? row;
}

/** The payer asks: the gateway is queried and a final answer applied (credited at most once). */
export async function queryRecharge(deps: WalletDeps, identity: UserIdentity, id: string) {
  const row = isUuid(id) ? await findPayment(deps.db, id) : null;
  if (!row || row.user_id !== identity.sub) throw new NotFound('payment not found');
  if (row.status !== 'pending') return toPaymentView(row);
  return toPaymentView(await queryAndApply(deps, identity, row, 'query'));
}

/**
 * Pending payments past `expires_at` are closed at the gateway first: one the payer managed to pay
 * meanwhile is credited, a failed one fails, the rest expire. One whose gateway reports another
 * amount is decided too: it fails, with an audit entry telling an operator to refund it at the
 * gateway, so it never comes back to the scan. One whose gateway cannot be reached waits behind the
 * others until the next scan. Safe on several replicas: rows are claimed with SKIP LOCKED and each
 * move happens under the payment's row lock.
 */
export async function expireOverduePayments(deps: WalletDeps, now = new Date(), recheckMs = 60_000): Promise<number> {
  const ids = await claimOverduePayments(deps.db, now, recheckMs, 100);
  for (const id of ids) {
    try {
      await expireOne(deps, id);
    } catch (err) {
      deps.log.warn({ payment_id: id, err: { message: (err as Error).message } }, 'overdue payment not decided yet; retried at a later scan');
    }
  }
  return ids.length;
}

async function expireOne(deps: WalletDeps, id: string) {
  const row = await findPayment(deps.db, id);
  if (!row || row.status !== 'pending') return;
  const gateway = gatewayOf(deps, row);
  if (!gateway) {
    deps.log.error({ payment_id: id, provider: row.provider }, 'overdue payment of a channel no longer enabled; left pending');
    return;
  }
  const state = await gateway.closePayment(id);
  const outcome = outcomeOf(state) ?? 'expired';
  if (outcome === 'succeeded' && state!.amount !== Number(row.amount)) {
    await auditAmountMismatch(deps, null, id, {
      source: 'expiry',
      expected: Number(row.amount),
      reported: state!.amount,
      gateway_txn_id: state!.gatewayTxnId,
      decision: 'failed; refund the payer at the gateway',
    });
    await settlePayment(deps, id, { outcome: 'failed', gatewayTxnId: state!.gatewayTxnId, paidAt: null, source: 'expiry' });
    return;
  }
  await settlePayment(deps, id, { outcome, gatewayTxnId: state?.gatewayTxnId ?? null, paidAt: state?.paidAt ?? null, source: 'expiry' });
}

/**
 * No notification is trusted to come: a payment still pending some minutes after it was opened is
 * asked about at its gateway, and again every `queryAfterMs` until it is final or expires.
 */
export async function queryPendingPayments(deps: WalletDeps, now = new Date()): Promise<number> {
  const ids = await claimPaymentsToQuery(deps.db, now, deps.recharge.queryAfterMs, 100);
  for (const id of ids) {
    const row = await findPayment(deps.db, id);
    if (!row || row.status !== 'pending') continue;
    try {
      await queryAndApply(deps, null, row, 'active_query');
    } catch (err) {
      deps.log.warn({ payment_id: id, err: { message: (err as Error).message } }, 'pending payment could not be queried; asked again later');
    }
  }
  return ids.length;
}
