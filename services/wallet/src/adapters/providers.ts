import { ConfigError, inDevelopment } from '@market/shared/config';
import { type Db } from '@market/shared/db';
import { type Logger } from '@market/shared/logging';
import type { AlipayNotifications, PaymentGateway, PayoutChannel, WechatPayNotifications } from '../application/ports';
import type { PaymentProvider } from '../domain/payment-channel';
import { AlipayClient, AlipayGateway } from './alipay-gateway';
import { AlipayPayouts } from './alipay-payouts';
import { SandboxPaymentGateway } from './sandbox-gateway';
import { WechatPayClient, WechatPayGateway } from './wechatpay-gateway';
import { WechatPayPayouts } from './wechatpay-payouts';

interface GatewayConfig {
  NODE_ENV: string;
  PAYGATE_PROVIDER: PaymentProvider[];
  PAYGATE_SECRET: string;
  ALIPAY_APP_ID?: string;
  ALIPAY_PRIVATE_KEY?: string;
  ALIPAY_PUBLIC_KEY?: string;
  ALIPAY_GATEWAY: string;
  ALIPAY_NOTIFY_URL?: string;
  ALIPAY_TIMEOUT_MS: number;
  WECHATPAY_APP_ID?: string;
  WECHATPAY_MCH_ID?: string;
  WECHATPAY_PRIVATE_KEY?: string;
  WECHATPAY_CERTIFICATE?: string;
  WECHATPAY_API_V3_KEY?: string;
  WECHATPAY_NOTIFY_URL?: string;
  WECHATPAY_BASE_URL: string;
  WECHATPAY_TIMEOUT_MS: number;
}

export interface PaymentChannels {
  enabled: PaymentProvider[];
  gateways: Map<PaymentProvider, PaymentGateway>;
  sandbox: SandboxPaymentGateway | null;
  alipay: AlipayNotifications | null;
  wechatpay: WechatPayNotifications | null;
  /** withdrawals go out through the enabled real channels */
  payouts: Map<string, PayoutChannel>;
}

/** The names of the variables a channel needs that are not set. */
function missing(config: GatewayConfig, names: Array<keyof GatewayConfig>): string[] {
  return names.filter((n) => !config[n]);
}

/**
 * The enabled payment channels. A channel with an incomplete configuration stops the start, naming
 * what is missing, in every environment (it could take no payment). The sandbox lets anyone mark a
 * payment paid and credit a wallet with money that never arrived, so production refuses it.
 */
export function createPaymentChannels(config: GatewayConfig, db: Db, log: Logger): PaymentChannels {
  const faults: string[] = [];
  if (!inDevelopment(config) && config.PAYGATE_PROVIDER.includes('sandbox')) {
    faults.push(`PAYGATE_PROVIDER=sandbox is for development (NODE_ENV is ${config.NODE_ENV}); enable alipay or wechatpay`);
  }
  if (config.PAYGATE_PROVIDER.includes('alipay')) {
    const absent = missing(config, ['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY', 'ALIPAY_PUBLIC_KEY', 'ALIPAY_NOTIFY_URL']);
    if (absent.length > 0) faults.push(`the alipay channel needs ${absent.join(', ')}`);
  }
  if (config.PAYGATE_PROVIDER.includes('wechatpay')) {
    const absent = missing(config, [
      'WECHATPAY_APP_ID',
      'WECHATPAY_MCH_ID',
      'WECHATPAY_PRIVATE_KEY',
      'WECHATPAY_CERTIFICATE',
      'WECHATPAY_API_V3_KEY',
      'WECHATPAY_NOTIFY_URL',
    ]);
    if (absent.length > 0) faults.push(`the wechatpay channel needs ${absent.join(', ')}`);
  }
  if (faults.length > 0) throw new ConfigError(faults.join('; '));

  const gateways = new Map<PaymentProvider, PaymentGateway>();
  let sandbox: SandboxPaymentGateway | null = null;
  let alipay: AlipayGateway | null = null;
  let wechatpay: WechatPayGateway | null = null;
  const payouts = new Map<string, PayoutChannel>();
  for (const provider of config.PAYGATE_PROVIDER) {
    if (provider === 'sandbox') {
      sandbox = new SandboxPaymentGateway(db, config.PAYGATE_SECRET, log);
      gateways.set(provider, sandbox);
    } else if (provider === 'alipay') {
      const alipayClient = new AlipayClient(
        {
          appId: config.ALIPAY_APP_ID!,
          privateKey: config.ALIPAY_PRIVATE_KEY!,
          alipayPublicKey: config.ALIPAY_PUBLIC_KEY!,
          gateway: config.ALIPAY_GATEWAY,
          notifyUrl: config.ALIPAY_NOTIFY_URL!,
          timeoutMs: config.ALIPAY_TIMEOUT_MS,
        },
        log,
      );
      alipay = new AlipayGateway(alipayClient);
      gateways.set(provider, alipay);
      payouts.set('alipay', new AlipayPayouts(alipayClient));
    } else if (provider === 'wechatpay') {
      const wechatClient = new WechatPayClient(
        {
          appId: config.WECHATPAY_APP_ID!,
          mchId: config.WECHATPAY_MCH_ID!,
          privateKey: config.WECHATPAY_PRIVATE_KEY!,
          certificate: config.WECHATPAY_CERTIFICATE!,
          apiV3Key: config.WECHATPAY_API_V3_KEY!,
          notifyUrl: config.WECHATPAY_NOTIFY_URL!,
          baseUrl: config.WECHATPAY_BASE_URL,
          timeoutMs: config.WECHATPAY_TIMEOUT_MS,
        },
        log,
      );
      wechatpay = new WechatPayGateway(wechatClient);
      gateways.set(provider, wechatpay);
      payouts.set('wechatpay', new WechatPayPayouts(wechatClient));
    }
  }
  return { enabled: config.PAYGATE_PROVIDER, gateways, sandbox, alipay, wechatpay, payouts };
}
