import type { PayoutChannel, PayoutOutcome } from '../application/ports';
import { fromAlipayTime } from '../domain/alipay-time';
import { fenToYuan } from '../domain/yuan';
import type { AlipayAnswer, AlipayClient } from './alipay-gateway';

const SCENE = { product_code: 'TRANS_ACCOUNT_NO_PWD', biz_scene: 'DIRECT_TRANSFER' };

/**
 * The `sub_code`s of `alipay.fund.trans.uni.transfer` (code 40004) after which Alipay has made no
 * transfer and the same request would be refused again, so the withdrawal fails and its hold goes
 * back (ADR 0048). Every other answer, among them SYSTEM_ERROR, code 20000, a timeout, a lost or
 * unverifiable answer, PAYMENT_INFO_INCONSISTENCY (the number exists with other details: a
 * transfer may exist), PAYER_BALANCE_NOT_ENOUGH and the daily limit (both pass later under the same
 * number), is unknown and asked about with `alipay.fund.trans.common.query` until final.
 */
export const KNOWN_FINAL_TRANSFER_CODES: ReadonlySet<string> = new Set([
  // the payee: no such account, several accounts on the phone number, the name does not match it
  'PAYEE_NOT_EXIST',
  'PAYEE_ACC_OCUPIED',
  'PAYEE_USER_INFO_ERROR',
  // the payee's account cannot receive: abnormal, not real-name certified, no balance account opened
  'PAYEE_ACCOUNT_STATUS_ERROR',
  'PAYEE_USERINFO_STATUS_ERROR',
  'PAYEE_NOT_RELNAME_CERTIFY',
  'PERMIT_NON_BANK_LIMIT_PAYEE',
  // the amount is outside what one transfer may be, whenever it is sent
  'EXCEED_LIMIT_SM_AMOUNT',
  'EXCEED_LIMIT_SM_MIN_AMOUNT',
  // payer and payee are the same account
  'PAYER_PAYEE_CANNOT_SAME',
]);

/**
 * A transfer's `status` (of the transfer's answer or of the query): SUCCESS is paid; FAIL and
 * CLOSED are final with nothing paid; REFUND is paid and then returned to us; DEALING, WAIT_PAY and
 * anything new are unknown.
 */
function fromStatus(answer: AlipayAnswer): Exclude<PayoutOutcome, { outcome: 'not_found' }> {
  const providerOrderId = answer.order_id ?? null;
  if (answer.status === 'SUCCESS') return { outcome: 'paid', providerOrderId, paidAt: fromAlipayTime(answer.trans_date) ?? new Date() };
  if (answer.status === 'FAIL' || answer.status === 'CLOSED') return { outcome: 'failed', reason: String(answer.fail_reason ?? answer.error_code ?? answer.status) };
  if (answer.status === 'REFUND') return { outcome: 'reversed', providerOrderId, reason: String(answer.fail_reason ?? answer.error_code ?? 'REFUND') };
  return { outcome: 'unknown', detail: String(answer.status) };
}

/**
 * Alipay single transfers to an Alipay account (`alipay.fund.trans.uni.transfer`, product 转账到支付宝账户),
 * the withdrawal id as `out_biz_no`: Alipay pays one `out_biz_no` once, however often it is sent, and
 * a resend carries the same number, amount and payee. Only a known-final refusal fails a payout.
 */
export class AlipayPayouts implements PayoutChannel {
  readonly channel = 'alipay';

  constructor(private readonly client: AlipayClient) {}

  async send(t: { withdrawalId: string; amount: number; payeeAccount: string; payeeName: string }): Promise<Exclude<PayoutOutcome, { outcome: 'not_found' }>> {
    const answer = await this.client.call('alipay.fund.trans.uni.transfer', {
      bizContent: {
        out_biz_no: t.withdrawalId,
        trans_amount: fenToYuan(t.amount),
        ...SCENE,
        order_title: '账户提现',
        payee_info: { identity: t.payeeAccount, identity_type: 'ALIPAY_LOGON_ID', name: t.payeeName },
      },
    });
    if (!answer) return { outcome: 'unknown', detail: 'no answer' };
    if (answer.code === '10000') return fromStatus(answer);
    const subCode = String(answer.sub_code ?? answer.code);
    if (answer.code === '40004' && KNOWN_FINAL_TRANSFER_CODES.has(subCode)) return { outcome: 'failed', reason: subCode };
    return { outcome: 'unknown', detail: subCode };
  }

  async query(withdrawalId: string): Promise<PayoutOutcome> {
    const answer = await this.client.call('alipay.fund.trans.common.query', { bizContent: { out_biz_no: withdrawalId, ...SCENE } });
    if (!answer) return { outcome: 'unknown', detail: 'no answer' };
    if (answer.code === '10000') return fromStatus(answer);
    if (answer.code === '40004' && answer.sub_code === 'ORDER_NOT_EXIST') return { outcome: 'not_found' };
    return { outcome: 'unknown', detail: String(answer.sub_code ?? answer.code) };
  }
}
