import type { GatewayPayment, PaymentGateway, PaymentInstructions, WechatPayNotifications } from '../application/ports';
import { ProviderFailed } from '../domain/errors';
import type { WechatCallbackHeaders } from '../application/receive-wechatpay-notification';
import { toMerchantNo as toOutTradeNo } from '../domain/wechat-merchant-no';
import { wechatTime, type WechatPayClient } from './wechatpay-client';

export interface WechatTransaction {
  appid?: string;
  mchid?: string;
  out_trade_no?: string;
  transaction_id?: string;
  trade_state?: string;
  amount?: { total?: number };
  success_time?: string;
}

function toGatewayPayment(t: WechatTransaction): GatewayPayment {
  const state = t.trade_state;
  return {
    status: state === 'SUCCESS' ? 'succeeded' : state === 'CLOSED' || state === 'REVOKED' ? 'closed' : state === 'PAYERROR' ? 'failed' : 'pending',
    amount: typeof t.amount?.total === 'number' ? t.amount.total : -1,
    gatewayTxnId: t.transaction_id ?? null,
    paidAt: t.success_time ? new Date(t.success_time) : null,
  };
}

/**
 * WeChat Pay API v3 Native payments: the payer scans `code_url`. Requests are signed and answers
 * verified by the client; callbacks are verified by the key their `Wechatpay-Serial` names and their
 * AEAD_AES_256_GCM resources opened with the API v3 key.
 */
export class WechatPayGateway implements PaymentGateway, WechatPayNotifications {
  readonly provider = 'wechatpay';

  constructor(
    private readonly client: WechatPayClient,
    private readonly notifyUrl: string,
  ) {}

  get appId() {
    return this.client.config.appId;
  }

  get mchId() {
    return this.client.config.mchId;
  }

  async createPayment(input: { paymentId: string; amount: number; expiresAt: Date }): Promise<PaymentInstructions> {
    const out = await this.client.request('open the payment', 'post', 'v3/pay/transactions/native', {
      body: {
        appid: this.appId,
        mchid: this.mchId,
        description: '钱包充值',
        out_trade_no: toOutTradeNo(input.paymentId),
        notify_url: this.notifyUrl,
        time_expire: wechatTime(input.expiresAt),
        amount: { total: input.amount, currency: 'CNY' },
      },
    });
    if (out.status !== 200 || typeof out.data?.code_url !== 'string') throw new ProviderFailed('WeChat Pay', 'open the payment');
    return { payUrl: out.data.code_url, qrCode: out.data.code_url };
  }

  async queryPayment(paymentId: string): Promise<GatewayPayment | null> {
    const out = await this.client.request('say how the payment stands', 'get', `v3/pay/transactions/out-trade-no/${toOutTradeNo(paymentId)}?mchid=${this.mchId}`);
    if (out.status === 404 && out.data?.code === 'ORDER_NOT_EXIST') return null;
    if (out.status !== 200) throw new ProviderFailed('WeChat Pay', 'say how the payment stands');
    return toGatewayPayment(out.data);
  }

  /** A paid order cannot be closed (`ORDER_PAID`); the query after the close says what it became either way. */
  async closePayment(paymentId: string): Promise<GatewayPayment | null> {
    const out = await this.client.request('close the payment', 'post', `v3/pay/transactions/out-trade-no/${toOutTradeNo(paymentId)}/close`, {
      body: { mchid: this.mchId },
    });
    if (out.status !== 204 && !(out.status === 400 && out.data?.code === 'ORDER_PAID') && out.status !== 404) throw new ProviderFailed('WeChat Pay', 'close the payment');
    return this.queryPayment(paymentId);
  }

  async verify(headers: WechatCallbackHeaders, body: string): Promise<boolean> {
    return this.client.verifyCallback(headers, body);
  }

  decrypt(resource: { ciphertext: string; associated_data: string; nonce: string }): WechatTransaction | null {
    return this.client.decrypt(resource);
  }

  openResource(resource: { ciphertext?: string; associated_data?: string; nonce?: string } | undefined): Record<string, unknown> | null {
    return this.client.decrypt(resource);
  }
}
