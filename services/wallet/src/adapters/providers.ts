import { ConfigError, inDevelopment } from '@market/shared/config';
import { type Db } from '@market/shared/db';
import { type Logger } from '@market/shared/logging';
import type { AlipayNotifications, BillSource, PaymentGateway, PayoutChannel, RefundChannel, WechatPayNotifications } from '../application/ports';
import type { PaymentProvider } from '../domain/payment-channel';
import type { AlipayVerification } from './alipay-gateway';
import { SandboxPayouts } from './sandbox-payouts';
import { SandboxPaymentGateway } from './sandbox-gateway';
import { SandboxBills, SandboxRefunds } from './sandbox-refunds';

/*
 * A provider's adapters, and with them its SDK, are loaded only when the provider is enabled (ADR
 * 0074): alipay-sdk and wechatpay-axios-plugin are hundreds of modules a wallet without that
 * channel would parse for nothing, at every start.
 */
const loadAlipayChannel = () => (require('./alipay-channel') as typeof import('./alipay-channel')).alipayChannel;
const loadWechatPayChannel = () => (require('./wechatpay-channel') as typeof import('./wechatpay-channel')).wechatPayChannel;
const loadWechatPayKeys = () => require('./wechatpay-client') as typeof import('./wechatpay-client');

export interface GatewayConfig {
  NODE_ENV: string;
  PAYGATE_PROVIDER: PaymentProvider[];
  PAYGATE_SECRET: string;
  ALIPAY_APP_ID?: string;
  ALIPAY_PRIVATE_KEY?: string;
  ALIPAY_PUBLIC_KEY?: string;
  ALIPAY_APP_CERT?: string;
  ALIPAY_PUBLIC_CERT?: string;
  ALIPAY_ROOT_CERT?: string;
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
  PAYOUT_PROVIDER?: PaymentProvider[];
}

export interface PaymentChannels {
  enabled: PaymentProvider[];
  gateways: Map<PaymentProvider, PaymentGateway>;
  sandbox: SandboxPaymentGateway | null;
  alipay: AlipayNotifications | null;
  wechatpay: WechatPayNotifications | null;
  /** withdrawals go out through these, by withdrawal channel (PAYOUT_PROVIDER) */
  payouts: Map<string, PayoutChannel>;
  /** recharges are refunded through the provider they were paid with */
  refunds: Map<PaymentProvider, RefundChannel>;
  /** each provider's daily bills, for reconciliation */
  bills: Map<PaymentProvider, BillSource>;
  sandboxRefunds: SandboxRefunds | null;
}

/** The names of the variables a channel needs that are not set. */
function missing(config: GatewayConfig, names: Array<keyof GatewayConfig>): string[] {
  return names.filter((n) => !config[n]);
}

const ALIPAY_CERTS = ['ALIPAY_APP_CERT', 'ALIPAY_PUBLIC_CERT', 'ALIPAY_ROOT_CERT'] as const;

/** Alipay's key material as configured: the certificates when any is set (all three are then required), else the public key. */
function alipayVerification(config: GatewayConfig): AlipayVerification | null {
  if (ALIPAY_CERTS.some((n) => config[n])) {
    if (missing(config, [...ALIPAY_CERTS]).length > 0) return null;
    return { mode: 'certificate', certificates: { appCert: config.ALIPAY_APP_CERT!, alipayPublicCert: config.ALIPAY_PUBLIC_CERT!, rootCert: config.ALIPAY_ROOT_CERT! } };
  }
  return config.ALIPAY_PUBLIC_KEY ? { mode: 'public_key', alipayPublicKey: config.ALIPAY_PUBLIC_KEY } : null;
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
  const unreadable = loadWechatPayKeys().unreadableWechatPayKeys({ publicKey: config.WECHATPAY_PUBLIC_KEY, platformCertificates: config.WECHATPAY_PLATFORM_CERTIFICATES });
  return [...gaps, ...unreadable.map((name) => `${name} as PEM`)];
}

/**
 * The channels withdrawals go out through: `PAYOUT_PROVIDER` as listed, or by default every
 * enabled real payment channel plus, in development, the sandbox's payouts.
 */
function payoutProviders(config: GatewayConfig): PaymentProvider[] {
  if (config.PAYOUT_PROVIDER) return config.PAYOUT_PROVIDER;
  const real = config.PAYGATE_PROVIDER.filter((p) => p !== 'sandbox');
  return inDevelopment(config) && config.PAYGATE_PROVIDER.includes('sandbox') ? [...real, 'sandbox'] : real;
}

/** An address the wallet sends keys or money instructions to, or gives Alipay/WeChat Pay to post to. */
const ENDPOINTS: Record<'alipay' | 'wechatpay', Array<keyof GatewayConfig>> = {
  alipay: ['ALIPAY_GATEWAY', 'ALIPAY_NOTIFY_URL'],
  wechatpay: ['WECHATPAY_BASE_URL', 'WECHATPAY_NOTIFY_URL', 'WECHATPAY_TRANSFER_NOTIFY_URL', 'WECHATPAY_REFUND_NOTIFY_URL'],
};

/** Alipay's sandbox (openapi-sandbox.dl.alipaydev.com, openapi.alipaydev.com) moves no real money. */
const isProviderSandbox = (url: string) => /(^|\.)alipaydev\.com$/i.test(new URL(url).hostname);

/**
 * Everything wrong with the payment and payout configuration, one line each. A channel with an
 * incomplete configuration is refused in every environment (it could take no payment). Production
 * refuses what would let money be minted or leak: the sandbox (anyone may mark a payment paid),
 * plain-http endpoints and the providers' own sandboxes, and Alipay payouts in public-key mode,
 * which Alipay's fund APIs refuse (ADR 0048).
 */
export function paymentConfigFaults(config: GatewayConfig): string[] {
  const faults: string[] = [];
  // outside development (any NODE_ENV but development, unset included) everything below is refused
  const production = !inDevelopment(config);
  const payouts = payoutProviders(config);
  if (production && config.PAYGATE_PROVIDER.includes('sandbox')) {
    faults.push(`PAYGATE_PROVIDER=sandbox is for development (NODE_ENV is ${config.NODE_ENV}); enable alipay or wechatpay`);
  }
  if (production && payouts.includes('sandbox')) faults.push(`PAYOUT_PROVIDER=sandbox is for development (NODE_ENV is ${config.NODE_ENV}); pay out through alipay or wechatpay`);
  if (config.PAYGATE_PROVIDER.includes('alipay')) {
    const absent = missing(config, ['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY', 'ALIPAY_NOTIFY_URL']);
    const certsAbsent = missing(config, [...ALIPAY_CERTS]);
    if (certsAbsent.length === ALIPAY_CERTS.length) {
      if (!config.ALIPAY_PUBLIC_KEY) absent.push(`ALIPAY_PUBLIC_KEY (public-key mode) or ${ALIPAY_CERTS.join(', ')} (certificate mode)`);
    } else absent.push(...certsAbsent);
    if (absent.length > 0) faults.push(`the alipay channel needs ${absent.join(', ')}`);
    if (production && payouts.includes('alipay') && certsAbsent.length > 0) {
      faults.push(
        `Alipay payouts need certificate mode (公钥证书): set ${certsAbsent.join(', ')}, or leave alipay out of PAYOUT_PROVIDER for a pay-in-only app`,
      );
    }
  }
  if (config.PAYGATE_PROVIDER.includes('wechatpay')) {
    const absent = [
      ...missing(config, ['WECHATPAY_APP_ID', 'WECHATPAY_MCH_ID', 'WECHATPAY_PRIVATE_KEY', 'WECHATPAY_API_V3_KEY', 'WECHATPAY_NOTIFY_URL']),
      ...wechatPayKeyGaps(config),
    ];
    if (absent.length > 0) faults.push(`the wechatpay channel needs ${absent.join(', ')}`);
  }
  for (const payout of payouts) {
    if (payout !== 'sandbox' && !config.PAYGATE_PROVIDER.includes(payout)) faults.push(`PAYOUT_PROVIDER=${payout} needs ${payout} in PAYGATE_PROVIDER (its keys)`);
  }
  if (production) {
    for (const provider of ['alipay', 'wechatpay'] as const) {
      if (!config.PAYGATE_PROVIDER.includes(provider)) continue;
      for (const name of ENDPOINTS[provider]) {
        const value = config[name];
        if (typeof value !== 'string') continue;
        if (!value.startsWith('https:')) faults.push(`${name} must be https in production`);
        else if (isProviderSandbox(value)) faults.push(`${name} is the provider's sandbox, which moves no real money; use the production gateway`);
      }
    }
  }
  return faults;
}

/**
 * The enabled payment and payout channels, or a refusal to start naming every fault
 * (paymentConfigFaults). In development, withdrawals to a channel with no real payouts go to the
 * sandbox's, which pays at once.
 */
export function createPaymentChannels(config: GatewayConfig, db: Db, log: Logger): PaymentChannels {
  const faults = paymentConfigFaults(config);
  if (faults.length > 0) throw new ConfigError(faults.join('; '));
  const payoutList = payoutProviders(config);

  const gateways = new Map<PaymentProvider, PaymentGateway>();
  let sandbox: SandboxPaymentGateway | null = null;
  let alipay: AlipayNotifications | null = null;
  let wechatpay: WechatPayNotifications | null = null;
  const payouts = new Map<string, PayoutChannel>();
  const refunds = new Map<PaymentProvider, RefundChannel>();
  const bills = new Map<PaymentProvider, BillSource>();
  let sandboxRefunds: SandboxRefunds | null = null;
  /** A real provider's parts (alipay-channel.ts, wechatpay-channel.ts), filed under the provider; answers its gateway. */
  const register = <G extends PaymentGateway>(
    provider: 'alipay' | 'wechatpay',
    parts: { gateway: G; payouts: PayoutChannel | null; refunds: RefundChannel; bills: BillSource },
  ): G => {
    gateways.set(provider, parts.gateway);
    if (parts.payouts) payouts.set(provider, parts.payouts);
    refunds.set(provider, parts.refunds);
    bills.set(provider, parts.bills);
    return parts.gateway;
  };
  for (const provider of config.PAYGATE_PROVIDER) {
    if (provider === 'sandbox') {
      sandbox = new SandboxPaymentGateway(db, config.PAYGATE_SECRET, log);
      gateways.set(provider, sandbox);
      sandboxRefunds = new SandboxRefunds(db);
      refunds.set(provider, sandboxRefunds);
      bills.set(provider, new SandboxBills(db));
    } else if (provider === 'alipay') {
      // paymentConfigFaults has checked that the verification is complete
      alipay = register(provider, loadAlipayChannel()(config, alipayVerification(config)!, payoutList.includes(provider), log));
    } else if (provider === 'wechatpay') {
      wechatpay = register(provider, loadWechatPayChannel()(config, payoutList.includes(provider), log));
    }
  }
  if (payoutList.includes('sandbox')) {
    for (const channel of ['alipay', 'wechatpay'] as const) if (!payouts.has(channel)) payouts.set(channel, new SandboxPayouts(channel));
  }
  return { enabled: config.PAYGATE_PROVIDER, gateways, sandbox, alipay, wechatpay, payouts, refunds, bills, sandboxRefunds };
}
