import type { RefundChannel, RefundOutcome } from '../application/ports';
import { fromAlipayTime } from '../domain/alipay-time';
import { fenToYuan } from '../domain/yuan';
import type { AlipayAnswer, AlipayClient } from './alipay-gateway';

/**
 * The `sub_code`s of `alipay.trade.refund` (code 40004) after which Alipay has refunded nothing and
 * the same request would be refused again. Because Alipay answers a repeat of a refund it has made
 * with success (`fund_change` N), not with these, a refusal is final only once the query finds no
 * refund under our number. Every other answer is unknown and asked about again: SYSTEM_ERROR,
 * code 20000, timeouts, lost or unverifiable answers, SELLER_BALANCE_NOT_ENOUGH (the same number
 * passes once the balance is topped up), DISCORDANT_REPEAT_REQUEST (the number exists with other
 * details: a refund may exist).
 */
export const REFUND_FINAL_REFUSALS: ReadonlySet<string> = new Set([
  // no payment with that out_trade_no at Alipay
  'ACQ.TRADE_NOT_EXIST',
  // the payment cannot be refunded in its state: unpaid, closed, or finished (past the refund window)
  'ACQ.TRADE_STATUS_ERROR',
  'ACQ.TRADE_HAS_CLOSE',
  'ACQ.TRADE_HAS_FINISHED',
  // the amount: more than is left of the payment, or not the whole payment where only that is allowed
  'ACQ.REASON_TRADE_REFUND_FEE_ERR',
  'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL',
  // a field breaks Alipay's rules, whenever it is sent
  'ACQ.INVALID_PARAMETER',
]);

const subCodeOf = (answer: AlipayAnswer) => String(answer.sub_code ?? answer.code);

/**
 * Alipay refunds of a recharge (`alipay.trade.refund`): `out_trade_no` = the payment id and
 * `out_request_no` = the refund id, so Alipay refunds one refund id once however often it is sent;
 * the outcome is asked with `alipay.trade.fastpay.refund.query` under the same two numbers.
 */
export class AlipayRefunds implements RefundChannel {
  readonly provider = 'alipay';

  constructor(private readonly client: AlipayClient) {}

  async refund(input: Parameters<RefundChannel['refund']>[0]): Promise<Exclude<RefundOutcome, { outcome: 'not_found' }>> {
    const answer = await this.client.call('alipay.trade.refund', {
      bizContent: {
        out_trade_no: input.paymentId,
        out_request_no: input.refundId,
        refund_amount: fenToYuan(input.refundAmount),
        refund_reason: input.reason.slice(0, 256),
      },
    });
    if (!answer) return { outcome: 'unknown', detail: 'no answer' };
    // Alipay's rule: only `fund_change` Y says this call moved the money; N (a repeat, or still
    // being processed) says nothing about the outcome, which the query then gives
    if (answer.code === '10000') {
      if (answer.fund_change === 'Y') return { outcome: 'refunded', providerRefundId: answer.trade_no ?? null, refundedAt: fromAlipayTime(answer.gmt_refund_pay) ?? new Date() };
      const found = await this.query(input);
      return found.outcome === 'not_found' ? { outcome: 'unknown', detail: 'fund_change N' } : found;
    }
    const subCode = subCodeOf(answer);
    if (answer.code === '40004' && REFUND_FINAL_REFUSALS.has(subCode)) {
      const found = await this.query(input);
      if (found.outcome === 'not_found') return { outcome: 'failed', reason: subCode };
      return found;
    }
    return { outcome: 'unknown', detail: subCode };
  }

  /**
   * REFUND_SUCCESS is refunded. Alipay's rule for the rest: no `refund_status` means it did not
   * receive the refund or the refund did not go through, and the merchant sends it again under the
   * same `out_request_no` — so it is "not found", and the resend (refunded once at most) says what
   * it became. An unknown payment has no refund either. Any other status is unknown.
   */
  async query(input: Parameters<RefundChannel['query']>[0]): Promise<RefundOutcome> {
    const answer = await this.client.call('alipay.trade.fastpay.refund.query', {
      bizContent: { out_trade_no: input.paymentId, out_request_no: input.refundId, query_options: ['gmt_refund_pay'] },
    });
    if (!answer) return { outcome: 'unknown', detail: 'no answer' };
    if (answer.code === '40004' && answer.sub_code === 'ACQ.TRADE_NOT_EXIST') return { outcome: 'not_found' };
    if (answer.code !== '10000') return { outcome: 'unknown', detail: subCodeOf(answer) };
    if (answer.refund_status === 'REFUND_SUCCESS') {
      return { outcome: 'refunded', providerRefundId: answer.trade_no ?? null, refundedAt: fromAlipayTime(answer.gmt_refund_pay) ?? new Date() };
    }
    if (!answer.refund_status) return { outcome: 'not_found' };
    return { outcome: 'unknown', detail: String(answer.refund_status) };
  }
}
