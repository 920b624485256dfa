import { AlipaySdk, type AlipaySdkCommonResult } from 'alipay-sdk';
import { type Logger } from '@market/shared/logging';
import type { AlipayNotifications, GatewayPayment, PaymentGateway, PaymentInstructions } from '../application/ports';
import { ProviderFailed } from '../domain/errors';
import { fenToYuan, yuanToFen } from '../domain/yuan';
import { fromAlipayTime, toAlipayTime } from '../domain/alipay-time';

/** Certificate mode (公钥证书): the app's certificate, Alipay's public key certificate and Alipay's root certificate, PEM. */
export interface AlipayCertificates {
  appCert: string;
  alipayPublicCert: string;
  rootCert: string;
}

/** Alipay's key material: its public key (public-key mode, pay-in only) or the three certificates. */
export type AlipayVerification = { mode: 'public_key'; alipayPublicKey: string } | { mode: 'certificate'; certificates: AlipayCertificates };

export interface AlipayConfig {
  appId: string;
  privateKey: string;
  verification: AlipayVerification;
  gateway: string;
  notifyUrl: string;
  timeoutMs: number;
}

/** Alipay's answer to a call; `code` 10000 is success, 40004 a business refusal with its `subCode`. */
export type AlipayAnswer = AlipaySdkCommonResult;

/**
 * The SDK as the wallet calls it: every answer's RSA2 signature is verified with Alipay's public key
 * (`validateSign`), and a transport failure, a bad signature or a system error (code 20000) becomes
 * no answer (`null`), logged without the payload. In certificate mode the SDK sends `app_cert_sn`
 * and `alipay_root_cert_sn` with every request and takes Alipay's key from its certificate, which
 * then verifies answers and notifications alike.
 */
export class AlipayClient {
  readonly sdk: AlipaySdk;

  constructor(
    readonly config: AlipayConfig,
    private readonly log: Logger,
  ) {
    const keys =
      config.verification.mode === 'certificate'
        ? {
            appCertContent: config.verification.certificates.appCert,
            alipayPublicCertContent: config.verification.certificates.alipayPublicCert,
            alipayRootCertContent: config.verification.certificates.rootCert,
          }
        : { alipayPublicKey: config.verification.alipayPublicKey };
    this.sdk = new AlipaySdk({
      appId: config.appId,
      privateKey: config.privateKey,
      ...keys,
      gateway: config.gateway,
      signType: 'RSA2',
      timeout: config.timeoutMs,
      camelcase: false,
    });
  }

  /** Calls `method`; `null` when Alipay could not be heard from (the outcome of the call is unknown). */
  async call(method: string, params: Record<string, unknown>): Promise<AlipayAnswer | null> {
    try {
      const answer = await this.sdk.exec(method, params, { validateSign: true });
      if (answer.code === '20000') {
        this.log.warn({ method, code: answer.code, sub_code: answer.sub_code }, 'Alipay answered a system error');
        return null;
      }
      return answer;
    } catch (err) {
      this.log.warn({ method, err: { name: (err as Error).name, code: (err as { code?: string }).code } }, 'Alipay call failed');
      return null;
    }
  }
}

function toGatewayPayment(answer: AlipayAnswer): GatewayPayment {
  const status = answer.trade_status as string;
  return {
    status: status === 'TRADE_SUCCESS' || status === 'TRADE_FINISHED' ? 'succeeded' : status === 'TRADE_CLOSED' ? 'closed' : 'pending',
    amount: yuanToFen(answer.total_amount) ?? -1,
    gatewayTxnId: answer.trade_no ?? null,
    paidAt: fromAlipayTime(answer.send_pay_date),
  };
}

/**
 * Alipay face-to-face QR payments (`alipay.trade.precreate`): the payment id is the `out_trade_no`,
 * the payer scans `qr_code`; the trade expires at Alipay when the payment does (`time_expire`).
 */
export class AlipayGateway implements PaymentGateway, AlipayNotifications {
  readonly provider = 'alipay';

  constructor(private readonly client: AlipayClient) {}

  get appId() {
    return this.client.config.appId;
  }

  async createPayment(input: { paymentId: string; amount: number; expiresAt: Date }): Promise<PaymentInstructions> {
    const answer = await this.client.call('alipay.trade.precreate', {
      notify_url: this.client.config.notifyUrl,
      bizContent: {
        out_trade_no: input.paymentId,
        total_amount: fenToYuan(input.amount),
        subject: '钱包充值',
        time_expire: toAlipayTime(input.expiresAt),
      },
    });
    if (answer?.code !== '10000' || typeof answer.qr_code !== 'string') throw new ProviderFailed('Alipay', 'open the payment');
    return { payUrl: answer.qr_code, qrCode: answer.qr_code };
  }

  async queryPayment(paymentId: string): Promise<GatewayPayment | null> {
    const answer = await this.client.call('alipay.trade.query', { bizContent: { out_trade_no: paymentId } });
    if (answer?.code === '40004' && answer.sub_code === 'ACQ.TRADE_NOT_EXIST') return null;
    if (answer?.code !== '10000') throw new ProviderFailed('Alipay', 'say how the payment stands');
    return toGatewayPayment(answer);
  }

  /**
   * A QR trade exists at Alipay only once scanned: "not exist" means nobody can pay it any more. A
   * trade paid meanwhile cannot be closed; the query after the close says what it became either way.
   */
  async closePayment(paymentId: string): Promise<GatewayPayment | null> {
    const answer = await this.client.call('alipay.trade.close', { bizContent: { out_trade_no: paymentId } });
    if (!answer) throw new ProviderFailed('Alipay', 'close the payment');
    if (answer.code !== '10000' && !(answer.code === '40004' && ['ACQ.TRADE_NOT_EXIST', 'ACQ.TRADE_STATUS_ERROR'].includes(answer.sub_code ?? ''))) {
      throw new ProviderFailed('Alipay', 'close the payment');
    }
    return this.queryPayment(paymentId);
  }

  /** The notification's RSA2 signature over its decoded fields (the form is already decoded, so raw mode). */
  verify(fields: Record<string, string>): boolean {
    try {
      return this.client.sdk.checkNotifySignV2(fields);
    } catch {
      return false;
    }
  }
}
