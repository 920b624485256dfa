import { idOfMerchantNo } from '../domain/wechat-merchant-no';
import { findPayment } from '../persistence/payment-repository';
import type { WalletDeps } from './deps';
import { auditAmountMismatch, auditRefusedNotification } from './recharge';
import { settlePayment } from './settle-payment';

export interface WechatCallbackHeaders {
  timestamp: string;
  nonce: string;
  serial: string;
  signature: string;
}

/** How WeChat Pay is answered: `ok` (204) stops its retries; a refusal or `retry` makes it post again later. */
export type WechatAck = 'ok' | 'refused' | 'retry';

async function refuse(deps: WalletDeps, reason: string, paymentId: string | null): Promise<WechatAck> {
  await auditRefusedNotification(deps, 'wechatpay', reason, paymentId);
  return 'refused';
}

/**
 * WeChat Pay's payment callback. The platform signature over the exact bytes (and a timestamp within
 * five minutes) is checked first, then the resource is decrypted with the API v3 key, then appid,
 * mchid, our payment, `amount.total` (fen) and `trade_state` are checked against the stored payment.
 * A success is applied under the payment's lock: a replay credits nothing more.
 */
export async function receiveWechatPayNotification(deps: WalletDeps, headers: WechatCallbackHeaders, raw: Buffer): Promise<WechatAck> {
  if (!deps.wechatpay) return 'refused';
  const body = raw.toString('utf8');
  if (!(await deps.wechatpay.verify(headers, body))) return refuse(deps, 'signature', null);
  let envelope: { event_type?: string; resource?: { ciphertext: string; associated_data: string; nonce: string } };
  try {
    envelope = JSON.parse(body);
  } catch {
    return refuse(deps, 'malformed body', null);
  }
  const transaction = envelope.resource ? deps.wechatpay.decrypt(envelope.resource) : null;
  if (!transaction) return refuse(deps, 'resource not decryptable', null);
  const paymentId = idOfMerchantNo(transaction.out_trade_no);
  if (transaction.appid !== deps.wechatpay.appId || transaction.mchid !== deps.wechatpay.mchId) return refuse(deps, 'appid or mchid', paymentId);
  const payment = paymentId ? await findPayment(deps.db, paymentId) : null;
  if (!payment || payment.provider !== 'wechatpay') return refuse(deps, 'unknown out_trade_no', paymentId);
  if (transaction.amount?.total !== Number(payment.amount)) {
    await auditAmountMismatch(deps, null, payment.id, {
      source: 'wechatpay_notification',
      expected: Number(payment.amount),
      reported: transaction.amount?.total ?? null,
      trade_state: transaction.trade_state ?? null,
    });
    return 'refused';
  }
  if (transaction.trade_state !== 'SUCCESS') return 'ok';
  await settlePayment(deps, payment.id, {
    outcome: 'succeeded',
    gatewayTxnId: transaction.transaction_id ?? null,
    paidAt: transaction.success_time ? new Date(transaction.success_time) : null,
    source: 'wechatpay_notification',
  });
  return 'ok';
}
