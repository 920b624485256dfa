import { ConfigError } from '@market/shared/config';
import { type Db } from '@market/shared/db';
import { type Logger } from '@market/shared/logging';
import type { AlipayNotifications, BillSource, PaymentGateway, PayoutChannel, RefundChannel, WechatPayNotifications } from '../application/ports';
import type { PaymentProvider } from '../domain/payment-channel';
import { AlipayClient, AlipayGateway } from './alipay-gateway';
import { AlipayPayouts } from './alipay-payouts';
import { SandboxPaymentGateway } from './sandbox-gateway';
import { WechatPayBills } from './wechatpay-bills';
import { certificateSerial, unreadableWechatPayKeys, WechatPayClient, wechatPayPlatformKeys } from './wechatpay-client';
import { WechatPayGateway } from './wechatpay-gateway';
import { WechatPayPayouts } from './wechatpay-payouts';
import { WechatPayRefunds } from './wechatpay-refunds';

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
  WECHATPAY_MERCHANT_SERIAL?: string;
  WECHATPAY_CERTIFICATE?: string;
  WECHATPAY_PUBLIC_KEY?: string;
  WECHATPAY_PUBLIC_KEY_ID?: string;
  WECHATPAY_PLATFORM_CERTIFICATES?: string;
  WECHATPAY_API_V3_KEY?: string;
  WECHATPAY_NOTIFY_URL?: string;
  WECHATPAY_TRANSFER_NOTIFY_URL?: string;
  WECHATPAY_REFUND_NOTIFY_URL?: string;
  WECHATPAY_TRANSFER_SCENE_ID: string;
  WECHATPAY_TRANSFER_PERCEPTION: string;
  WECHATPAY_TRANSFER_REPORT_INFOS: Array<{ info_type: string; info_content: string }>;
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
  /** recharges are refunded through the channel they came by */
  refunds: Map<PaymentProvider, RefundChannel>;
  /** each real channel's daily bills, for reconciliation */
  bills: Map<PaymentProvider, BillSource>;
}

/** The names of the variables a channel needs that are not set. */
function missing(config: GatewayConfig, names: Array<keyof GatewayConfig>): string[] {
  return names.filter((n) => !config[n]);
}

/**
 * What WeChat Pay's verification still lacks: the merchant certificate's serial (given, or read from
 * the certificate), and at least one way to verify WeChat Pay — its public key with the key's id,
 * or platform certificates; a public key without its id (or the other way round) is named too, and
 * so is a key or certificate that does not read as one.
 */
function wechatPayKeyGaps(config: GatewayConfig): string[] {
  const gaps: string[] = [];
  if (!config.WECHATPAY_MERCHANT_SERIAL && !config.WECHATPAY_CERTIFICATE) gaps.push('WECHATPAY_MERCHANT_SERIAL (or WECHATPAY_CERTIFICATE)');
  if (config.WECHATPAY_PUBLIC_KEY && !config.WECHATPAY_PUBLIC_KEY_ID) gaps.push('WECHATPAY_PUBLIC_KEY_ID');
  else if (config.WECHATPAY_PUBLIC_KEY_ID && !config.WECHATPAY_PUBLIC_KEY) gaps.push('WECHATPAY_PUBLIC_KEY');
  else if (!config.WECHATPAY_PUBLIC_KEY && !config.WECHATPAY_PLATFORM_CERTIFICATES) gaps.push('WECHATPAY_PUBLIC_KEY with WECHATPAY_PUBLIC_KEY_ID, or WECHATPAY_PLATFORM_CERTIFICATES');
  const unreadable = unreadableWechatPayKeys({ publicKey: config.WECHATPAY_PUBLIC_KEY, platformCertificates: config.WECHATPAY_PLATFORM_CERTIFICATES });
  return [...gaps, ...unreadable.map((name) => `${name} as PEM`)];
}

/**
 * The enabled payment channels. A channel with an incomplete configuration stops the start, naming
 * what is missing, in every environment (it could take no payment). The sandbox lets anyone mark a
 * payment paid and credit a wallet with money that never arrived, so production refuses it.
 */
export function createPaymentChannels(config: GatewayConfig, db: Db, log: Logger): PaymentChannels {
  const faults: string[] = [];
  if (config.NODE_ENV === 'production' && config.PAYGATE_PROVIDER.includes('sandbox')) {
    faults.push('PAYGATE_PROVIDER=sandbox is for development; enable alipay or wechatpay in production');
  }
  if (config.PAYGATE_PROVIDER.includes('alipay')) {
    const absent = missing(config, ['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY', 'ALIPAY_PUBLIC_KEY', 'ALIPAY_NOTIFY_URL']);
    if (absent.length > 0) faults.push(`the alipay channel needs ${absent.join(', ')}`);
  }
  if (config.PAYGATE_PROVIDER.includes('wechatpay')) {
    const absent = [
      ...missing(config, ['WECHATPAY_APP_ID', 'WECHATPAY_MCH_ID', 'WECHATPAY_PRIVATE_KEY', 'WECHATPAY_API_V3_KEY', 'WECHATPAY_NOTIFY_URL']),
      ...wechatPayKeyGaps(config),
    ];
    if (absent.length > 0) faults.push(`the wechatpay channel needs ${absent.join(', ')}`);
  }
  if (faults.length > 0) throw new ConfigError(faults.join('; '));

  const gateways = new Map<PaymentProvider, PaymentGateway>();
  let sandbox: SandboxPaymentGateway | null = null;
  let alipay: AlipayGateway | null = null;
  let wechatpay: WechatPayGateway | null = null;
  const payouts = new Map<string, PayoutChannel>();
  const refunds = new Map<PaymentProvider, RefundChannel>();
  const bills = new Map<PaymentProvider, BillSource>();
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
          merchantSerial: config.WECHATPAY_MERCHANT_SERIAL?.toUpperCase() ?? certificateSerial(config.WECHATPAY_CERTIFICATE!),
          platformKeys: wechatPayPlatformKeys({
            publicKey: config.WECHATPAY_PUBLIC_KEY,
            publicKeyId: config.WECHATPAY_PUBLIC_KEY_ID,
            platformCertificates: config.WECHATPAY_PLATFORM_CERTIFICATES,
          }),
          apiV3Key: config.WECHATPAY_API_V3_KEY!,
          baseUrl: config.WECHATPAY_BASE_URL,
          timeoutMs: config.WECHATPAY_TIMEOUT_MS,
        },
        log,
      );
      wechatpay = new WechatPayGateway(wechatClient, config.WECHATPAY_NOTIFY_URL!);
      gateways.set(provider, wechatpay);
      payouts.set(
        'wechatpay',
        new WechatPayPayouts(wechatClient, {
          sceneId: config.WECHATPAY_TRANSFER_SCENE_ID,
          perception: config.WECHATPAY_TRANSFER_PERCEPTION,
          reportInfos: config.WECHATPAY_TRANSFER_REPORT_INFOS,
          notifyUrl: config.WECHATPAY_TRANSFER_NOTIFY_URL ?? null,
        }),
      );
      refunds.set(provider, new WechatPayRefunds(wechatClient, config.WECHATPAY_REFUND_NOTIFY_URL ?? null));
      bills.set(provider, new WechatPayBills(wechatClient));
    }
  }
  return { enabled: config.PAYGATE_PROVIDER, gateways, sandbox, alipay, wechatpay, payouts, refunds, bills };
}
