import type { RefundChannel, RefundOutcome } from '../application/ports';
import { toMerchantNo } from '../domain/wechat-merchant-no';
import type { WechatPayClient } from './wechatpay-client';
import { queriedOutcome, sentOutcome } from './wechatpay-outcomes';

/**
 * Refusals of a refund that are final, nothing having been created: PARAM_ERROR (a field fails the
 * rules), INVALID_REQUEST (not allowed: more than the payment's unrefunded amount, a payment older
 * than a year, a total that is not the payment's), RESOURCE_NOT_EXISTS (WeChat Pay has no such
 * payment). As with transfers, "the number exists with other details" also answers INVALID_REQUEST,
 * so a refusal is final only once a query finds no refund by that number. Everything else is
 * unknown: NOT_ENOUGH (the merchant's balance cannot cover it; the same number is sent again),
 * SYSTEM_ERROR, FREQUENCY_LIMITED, 5xx, timeouts, unverified answers.
 */
export const REFUND_FINAL_REFUSALS: ReadonlySet<string> = new Set(['PARAM_ERROR', 'INVALID_REQUEST', 'RESOURCE_NOT_EXISTS']);

/**
 * A refund (`/v3/refund/domestic/refunds/…`) as its status says. CLOSED: the refund was closed and
 * the money stayed with the merchant: final. ABNORMAL: WeChat Pay took the money from the merchant
 * but could not return it to the payer's card (closed or frozen); the merchant re-routes it on the
 * merchant platform (to the payer's balance or a bank account) and it then ends SUCCESS, so the
 * money is on its way out, not back: not final, asked about again.
 */
function outcomeOf(refund: { status?: string; refund_id?: string; success_time?: string }): Exclude<RefundOutcome, { outcome: 'not_found' }> {
  switch (refund.status) {
    case 'SUCCESS':
      return { outcome: 'refunded', providerRefundId: refund.refund_id ?? null, refundedAt: refund.success_time ? new Date(refund.success_time) : new Date() };
    case 'CLOSED':
      return { outcome: 'failed', reason: 'CLOSED' };
    default:
      // PROCESSING, ABNORMAL and anything new
      return { outcome: 'unknown', detail: refund.status };
  }
}

/**
 * WeChat Pay refunds of a recharge (`/v3/refund/domestic/refunds`): `out_trade_no` = the payment id
 * and `out_refund_no` = the refund id, each as its hex digits; WeChat Pay refunds one number once.
 */
export class WechatPayRefunds implements RefundChannel {
  readonly provider = 'wechatpay';

  constructor(
    private readonly client: WechatPayClient,
    /** public URL of `POST /api/payments/wechatpay/refund-notify`; without one the outcome is found by asking */
    private readonly notifyUrl: string | null,
  ) {}

  async refund(input: Parameters<RefundChannel['refund']>[0]): Promise<Exclude<RefundOutcome, { outcome: 'not_found' }>> {
    const body = {
      out_trade_no: toMerchantNo(input.paymentId),
      out_refund_no: toMerchantNo(input.refundId),
      reason: input.reason.slice(0, 80),
      ...(this.notifyUrl ? { notify_url: this.notifyUrl } : {}),
      amount: { refund: input.refundAmount, total: input.paymentAmount, currency: 'CNY' },
    };
    const ask = () => this.client.request('refund the payment', 'post', 'v3/refund/domestic/refunds', { body });
    return sentOutcome(ask, outcomeOf, REFUND_FINAL_REFUSALS, () => this.query(input));
  }

  async query(input: Parameters<RefundChannel['query']>[0]): Promise<RefundOutcome> {
    const ask = () => this.client.request('say how the refund stands', 'get', `v3/refund/domestic/refunds/${toMerchantNo(input.refundId)}`);
    return queriedOutcome(ask, outcomeOf, 'RESOURCE_NOT_EXISTS');
  }
}
