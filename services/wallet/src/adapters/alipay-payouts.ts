import type { PayoutChannel, PayoutOutcome } from '../application/ports';
import { fromAlipayTime } from '../domain/alipay-time';
import { fenToYuan } from '../domain/yuan';
import type { AlipayAnswer, AlipayClient } from './alipay-gateway';

const SCENE = { product_code: 'TRANS_ACCOUNT_NO_PWD', biz_scene: 'DIRECT_TRANSFER' };

function fromStatus(answer: AlipayAnswer): PayoutOutcome {
  if (answer.status === 'SUCCESS') {
    return { outcome: 'paid', providerOrderId: answer.order_id ?? null, paidAt: fromAlipayTime(answer.trans_date) ?? new Date() };
  }
  if (answer.status === 'FAIL' || answer.status === 'CLOSED') return { outcome: 'failed', reason: String(answer.fail_reason ?? answer.error_code ?? answer.status) };
  return { outcome: 'unknown' };
}

/**
 * Alipay single transfers to an Alipay account (`alipay.fund.trans.uni.transfer`), the withdrawal id
 * as `out_biz_no`: Alipay pays one `out_biz_no` once, however often it is sent. A refusal (code 40004
 * or a request Alipay rejected) is final; no answer, a system error or `DEALING` is unknown and is
 * asked about with `alipay.fund.trans.common.query`.
 */
export class AlipayPayouts implements PayoutChannel {
  readonly channel = 'alipay';

  constructor(private readonly client: AlipayClient) {}

  async send(t: { withdrawalId: string; amount: number; payeeAccount: string; payeeName: string }) {
    const answer = await this.client.call('alipay.fund.trans.uni.transfer', {
      bizContent: {
        out_biz_no: t.withdrawalId,
        trans_amount: fenToYuan(t.amount),
        ...SCENE,
        order_title: '账户提现',
        payee_info: { identity: t.payeeAccount, identity_type: 'ALIPAY_LOGON_ID', name: t.payeeName },
      },
    });
    if (!answer) return { outcome: 'unknown' as const };
    if (answer.code === '10000') return fromStatus(answer) as Exclude<PayoutOutcome, { outcome: 'not_found' }>;
    return { outcome: 'failed' as const, reason: String(answer.sub_code ?? answer.code) };
  }

  async query(withdrawalId: string): Promise<PayoutOutcome> {
    const answer = await this.client.call('alipay.fund.trans.common.query', { bizContent: { out_biz_no: withdrawalId, ...SCENE } });
    if (!answer) return { outcome: 'unknown' };
    if (answer.code === '10000') return fromStatus(answer);
    if (answer.code === '40004' && answer.sub_code === 'ORDER_NOT_EXIST') return { outcome: 'not_found' };
    return { outcome: 'unknown' };
  }
}
