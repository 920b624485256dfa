import { isUuid } from '@market/shared/db';
import { fromAlipayTime } from '../domain/alipay-time';
import { yuanToFen } from '../domain/yuan';
import { findPayment } from '../persistence/payment-repository';
import type { WalletDeps } from './deps';
import { auditAmountMismatch, auditRefusedNotification } from './recharge';
import { settlePayment } from './settle-payment';

/** What Alipay must read back: exactly `success` stops its retries, anything else (`fail`) makes it post again later. */
export type AlipayAck = 'success' | 'fail';

const PAID = new Set(['TRADE_SUCCESS', 'TRADE_FINISHED']);

async function refuse(deps: WalletDeps, reason: string, paymentId: string | null): Promise<AlipayAck> {
  await auditRefusedNotification(deps, 'alipay', reason, paymentId);
  return 'fail';
}

/**
 * Alipay's asynchronous payment notification (a form post). Its RSA2 signature is checked with
 * Alipay's public key before anything in it is believed; then the app id, our payment
 * (`out_trade_no`), the amount (`total_amount`) and the trade status are checked against the stored
 * payment. A paid trade is applied under the payment's lock, so a replay credits nothing more.
 */
export async function receiveAlipayNotification(deps: WalletDeps, raw: Buffer): Promise<AlipayAck> {
  if (!deps.alipay) return 'fail';
  const fields = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  const paymentId = isUuid(fields.out_trade_no ?? '') ? fields.out_trade_no! : null;
  if (!deps.alipay.verify(fields)) return refuse(deps, 'signature', paymentId);
  if (fields.app_id !== deps.alipay.appId) return refuse(deps, 'app_id', paymentId);
  const payment = paymentId ? await findPayment(deps.db, paymentId) : null;
  if (!payment || payment.provider !== 'alipay') return refuse(deps, 'unknown out_trade_no', paymentId);
  const reported = yuanToFen(fields.total_amount);
  if (reported !== Number(payment.amount)) {
    await auditAmountMismatch(deps, null, payment.id, {
      source: 'alipay_notification',
      expected: Number(payment.amount),
      reported,
      trade_status: fields.trade_status ?? null,
    });
    return 'fail';
  }
  // WAIT_BUYER_PAY and TRADE_CLOSED change nothing here: the expiry scan closes and decides unpaid payments.
  if (!PAID.has(fields.trade_status ?? '')) return 'success';
  await settlePayment(deps, payment.id, {
    outcome: 'succeeded',
    gatewayTxnId: fields.trade_no ?? null,
    paidAt: fromAlipayTime(fields.gmt_payment),
    source: 'alipay_notification',
  });
  return 'success';
}
