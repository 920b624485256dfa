import { PaygateNotifyBody } from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { InvalidInput, NotFound, zodIssuesToFieldErrors } from '@market/shared/errors';
import { NotificationAmountMismatch, NotificationNotJson, NotificationSignatureInvalid } from '../domain/errors';
import { paygateSignatureError } from '../domain/paygate-signature';
import { findPayment } from '../persistence/payment-repository';
import type { WalletDeps } from './deps';
import { auditAmountMismatch } from './recharge';
import { settlePayment } from './settle-payment';

/**
 * The development gateway's signed payment callback (ADR 0049: there only when the sandbox is
 * enabled, for the sandbox's own payments). The signature is checked over the exact bytes
 * received before anything is parsed, so nothing unsigned is ever read; then the body is validated
 * (unknown fields ignored), the amount compared with the payment, and the result applied under the
 * payment's lock: repeats and callbacks racing with queries credit once.
 */
export async function receivePaygateNotification(deps: WalletDeps, raw: Buffer, signature: string | undefined, identity: Identity | null) {
  const refused = paygateSignatureError(deps.paygateSecret, signature, raw, Math.floor(Date.now() / 1000));
  if (refused) throw new NotificationSignatureInvalid(refused);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new NotificationNotJson();
  }
  const parsed = PaygateNotifyBody.safeParse(json);
  if (!parsed.success) throw new InvalidInput(zodIssuesToFieldErrors(parsed.error.issues));
  const body = parsed.data;
  const payment = isUuid(body.payment_id) ? await findPayment(deps.db, body.payment_id) : null;
  // the sandbox settles its own payments only: an Alipay or WeChat Pay payment is settled by its provider's word
  if (!payment || payment.provider !== 'sandbox') throw new NotFound('no sandbox payment has this id');
  if (body.amount !== Number(payment.amount)) {
    await auditAmountMismatch(deps, identity, payment.id, {
      source: 'callback',
      expected: Number(payment.amount),
      reported: body.amount,
      status: body.status,
      gateway_txn_id: body.gateway_txn_id,
    });
    throw new NotificationAmountMismatch();
  }
  await settlePayment(deps, payment.id, {
    outcome: body.status,
    gatewayTxnId: body.gateway_txn_id,
    paidAt: body.status === 'succeeded' && body.paid_at ? new Date(body.paid_at) : null,
  });
  return { received: true as const };
}
