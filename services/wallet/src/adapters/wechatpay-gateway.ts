import WxPay from 'wechatpay-node-v3';
import { type Logger } from '@market/shared/logging';
import type { GatewayPayment, PaymentGateway, PaymentInstructions, WechatPayNotifications } from '../application/ports';
import { ProviderFailed } from '../domain/errors';

export interface WechatPayConfig {
  appId: string;
  mchId: string;
  /** the merchant's API private key (apiclient_key.pem) */
  privateKey: string;
  /** the merchant's API certificate (apiclient_cert.pem): the SDK takes the serial number from it */
  certificate: string;
  apiV3Key: string;
  notifyUrl: string;
  /** where WeChat Pay API v3 answers */
  baseUrl: string;
  timeoutMs: number;
}

const OFFICIAL_HOST = 'https://api.mch.weixin.qq.com';

/** What the SDK's HTTP services answer (its `Output`). */
export interface Output {
  status: number;
  data?: any;
  error?: any;
}

/**
 * The HTTP service the SDK sends through (`Pay.createHttp`, its own extension point): the SDK signs
 * every request for `api.mch.weixin.qq.com`, and this sends it, byte for byte, to `baseUrl`. Every
 * answer but the certificate list must carry the platform's signature, checked with the SDK's own
 * `verifySign` (which loads the platform certificates through this same service).
 */
class WechatPayHttp {
  constructor(
    private readonly pay: () => WxPay,
    private readonly config: WechatPayConfig,
  ) {}

  post(url: string, params: Record<string, unknown>, headers: Record<string, string>): Promise<Output> {
    return this.send('POST', url, headers, JSON.stringify(params));
  }

  get(url: string, headers: Record<string, string>): Promise<Output> {
    return this.send('GET', url, headers);
  }

  upload(): Promise<Output> {
    return Promise.reject(new Error('uploads are not used'));
  }

  private async send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<Output> {
    const target = url.startsWith(OFFICIAL_HOST) ? this.config.baseUrl + url.slice(OFFICIAL_HOST.length) : url;
    const { 'Accept-Encoding': _encoding, ...sent } = headers;
    const res = await fetch(target, { method, headers: sent, body, signal: AbortSignal.timeout(this.config.timeoutMs) });
    const text = await res.text();
    if (!url.endsWith('/v3/certificates')) {
      const verified = await this.pay().verifySign({
        timestamp: res.headers.get('wechatpay-timestamp') ?? '',
        nonce: res.headers.get('wechatpay-nonce') ?? '',
        serial: res.headers.get('wechatpay-serial') ?? '',
        signature: res.headers.get('wechatpay-signature') ?? '',
        body: text,
      });
      if (!verified) throw new Error('WeChat Pay answer not signed by the platform');
    }
    const data = text ? JSON.parse(text) : undefined;
    return res.ok ? { status: res.status, data } : { status: res.status, error: data };
  }
}

/** Our payment ids are uuids; WeChat Pay's `out_trade_no` allows 32 characters: the hex digits. */
export const toOutTradeNo = (paymentId: string) => paymentId.replace(/-/g, '');

/** RFC 3339 in China time, as WeChat Pay wants `time_expire`. */
function wechatTime(at: Date): string {
  return `${new Date(at.getTime() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;
}

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

/** The SDK set up for this merchant, sending through `WechatPayHttp`; transport failures become one logged `ProviderFailed`. */
export class WechatPayClient {
  readonly sdk: WxPay;
  private platformKey: { serial: string; publicKey: Buffer } | null = null;

  constructor(
    readonly config: WechatPayConfig,
    private readonly log: Logger,
  ) {
    this.sdk = new WxPay({
      appid: config.appId,
      mchid: config.mchId,
      publicKey: Buffer.from(config.certificate),
      privateKey: Buffer.from(config.privateKey),
      key: config.apiV3Key,
    });
    this.sdk.createHttp(new WechatPayHttp(() => this.sdk, config));
  }

  async call(what: string, run: () => Promise<Output>): Promise<Output> {
    try {
      return await run();
    } catch (err) {
      this.log.warn({ provider: 'wechatpay', what, err: { name: (err as Error).name } }, 'WeChat Pay call failed');
      throw new ProviderFailed('WeChat Pay', what);
    }
  }

  /** The newest platform certificate's key and serial (fetched and decrypted by the SDK), to encrypt sensitive fields for WeChat Pay. */
  async platformPublicKey(): Promise<{ serial: string; publicKey: Buffer }> {
    if (!this.platformKey) {
      const certificates = await this.sdk.get_certificates(this.config.apiV3Key);
      const newest = [...certificates].sort((a, b) => String(b.expire_time).localeCompare(String(a.expire_time)))[0];
      if (!newest) throw new ProviderFailed('WeChat Pay', 'name its platform certificate');
      this.platformKey = { serial: newest.serial_no, publicKey: Buffer.from(String((newest as { publicKey?: string }).publicKey)) };
    }
    return this.platformKey;
  }
}

/**
 * WeChat Pay API v3 Native payments through `wechatpay-node-v3`: the payer scans `code_url`. The SDK
 * signs each request (WECHATPAY2-SHA256-RSA2048), verifies callbacks' platform signatures and
 * decrypts their AEAD_AES_256_GCM resources with the API v3 key.
 */
export class WechatPayGateway implements PaymentGateway, WechatPayNotifications {
  readonly provider = 'wechatpay';
  private readonly pay: WxPay;
  private readonly config: WechatPayConfig;

  constructor(private readonly client: WechatPayClient) {
    this.pay = client.sdk;
    this.config = client.config;
  }

  get appId() {
    return this.config.appId;
  }

  get mchId() {
    return this.config.mchId;
  }

  private call(what: string, run: () => Promise<Output>) {
    return this.client.call(what, run);
  }

  async createPayment(input: { paymentId: string; amount: number; expiresAt: Date }): Promise<PaymentInstructions> {
    const out = await this.call('open the payment', () =>
      this.pay.transactions_native({
        description: '钱包充值',
        out_trade_no: toOutTradeNo(input.paymentId),
        notify_url: this.config.notifyUrl,
        time_expire: wechatTime(input.expiresAt),
        amount: { total: input.amount, currency: 'CNY' },
      }),
    );
    if (out.status !== 200 || typeof out.data?.code_url !== 'string') throw new ProviderFailed('WeChat Pay', 'open the payment');
    return { payUrl: out.data.code_url, qrCode: out.data.code_url };
  }

  async queryPayment(paymentId: string): Promise<GatewayPayment | null> {
    const out = await this.call('say how the payment stands', () => this.pay.query({ out_trade_no: toOutTradeNo(paymentId) }));
    if (out.status === 404 && out.error?.code === 'ORDER_NOT_EXIST') return null;
    if (out.status !== 200) throw new ProviderFailed('WeChat Pay', 'say how the payment stands');
    return toGatewayPayment(out.data);
  }

  /** A paid order cannot be closed (`ORDER_PAID`); the query after the close says what it became either way. */
  async closePayment(paymentId: string): Promise<GatewayPayment | null> {
    const out = await this.call('close the payment', () => this.pay.close(toOutTradeNo(paymentId)));
    if (out.status !== 204 && !(out.status === 400 && out.error?.code === 'ORDER_PAID') && out.status !== 404) throw new ProviderFailed('WeChat Pay', 'close the payment');
    return this.queryPayment(paymentId);
  }

  async verify(headers: { timestamp: string; nonce: string; serial: string; signature: string }, body: string): Promise<boolean> {
    if (!/^\d{1,12}$/.test(headers.timestamp) || Math.abs(Date.now() / 1000 - Number(headers.timestamp)) > 300) return false;
    try {
      return await this.pay.verifySign({ ...headers, body });
    } catch {
      return false;
    }
  }

  decrypt(resource: { ciphertext: string; associated_data: string; nonce: string }): WechatTransaction | null {
    try {
      const plain = this.pay.decipher_gcm<unknown>(resource.ciphertext, resource.associated_data ?? '', resource.nonce, this.config.apiV3Key);
      return typeof plain === 'object' && plain !== null ? (plain as WechatTransaction) : null;
    } catch {
      return null;
    }
  }
}
