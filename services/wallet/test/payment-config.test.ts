import { ConfigError } from '@market/shared/config';
import type { Db } from '@market/shared/db';
import { createLogger } from '@market/shared/logging';
import { createPaymentChannels, paymentConfigFaults } from '../src/adapters/providers';
import { walletEnv } from '../src/config';

type Config = Parameters<typeof paymentConfigFaults>[0];

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

/** A production wallet with Alipay in public-key mode, and whatever `over` changes. */
function config(over: Partial<Config> = {}): Config {
  return {
    NODE_ENV: 'production',
    PAYGATE_PROVIDER: ['alipay'],
    PAYGATE_SECRET: 'x'.repeat(40),
    ALIPAY_APP_ID: '2021000000000001',
    ALIPAY_PRIVATE_KEY: 'app-private-key',
    ALIPAY_PUBLIC_KEY: 'alipay-public-key',
    ALIPAY_GATEWAY: 'https://openapi.alipay.com/gateway.do',
    ALIPAY_NOTIFY_URL: 'https://market.example.com/api/payments/alipay/notify',
    ALIPAY_TIMEOUT_MS: 5_000,
    WECHATPAY_BASE_URL: 'https://api.mch.weixin.qq.com',
    WECHATPAY_TIMEOUT_MS: 5_000,
    WECHATPAY_TRANSFER_SCENE_ID: '1005',
    WECHATPAY_TRANSFER_PERCEPTION: '劳务报酬',
    WECHATPAY_TRANSFER_REPORT_INFOS: [],
    ...over,
  };
}

const CERTS = { ALIPAY_APP_CERT: PEM, ALIPAY_PUBLIC_CERT: PEM, ALIPAY_ROOT_CERT: PEM };

describe('the payment and payout configuration', () => {
  it('refuses Alipay payouts in public-key mode in production, naming the certificates missing', () => {
    expect(paymentConfigFaults(config())).toEqual([
      'Alipay payouts need certificate mode (公钥证书): set ALIPAY_APP_CERT, ALIPAY_PUBLIC_CERT, ALIPAY_ROOT_CERT, or leave alipay out of PAYOUT_PROVIDER for a pay-in-only app',
    ]);
    expect(() => createPaymentChannels(config(), {} as Db, createLogger('wallet-test', 'silent'))).toThrow(ConfigError);
  });

  it('keeps public-key mode for a pay-in-only app, and takes certificate mode for payouts', () => {
    // an empty variable counts as unset, so no withdrawals at all is said with `none`
    expect(walletEnv.PAYOUT_PROVIDER.parse('none')).toEqual([]);
    expect(paymentConfigFaults(config({ PAYOUT_PROVIDER: walletEnv.PAYOUT_PROVIDER.parse('none') }))).toEqual([]);
    expect(paymentConfigFaults(config({ PAYOUT_PROVIDER: walletEnv.PAYOUT_PROVIDER.parse('wechatpay') }))).toEqual([
      'PAYOUT_PROVIDER=wechatpay needs wechatpay in PAYGATE_PROVIDER (its keys)',
    ]);
    expect(paymentConfigFaults(config({ ALIPAY_PUBLIC_KEY: undefined, ...CERTS }))).toEqual([]);
  });

  it('names what certificate mode misses when only some certificates are set, and needs a key of Alipay either way', () => {
    expect(paymentConfigFaults(config({ ALIPAY_PUBLIC_KEY: undefined, ALIPAY_APP_CERT: PEM, PAYOUT_PROVIDER: [] }))).toEqual([
      'the alipay channel needs ALIPAY_PUBLIC_CERT, ALIPAY_ROOT_CERT',
    ]);
    expect(paymentConfigFaults(config({ ALIPAY_PUBLIC_KEY: undefined, NODE_ENV: 'development' }))).toEqual([
      'the alipay channel needs ALIPAY_PUBLIC_KEY (public-key mode) or ALIPAY_APP_CERT, ALIPAY_PUBLIC_CERT, ALIPAY_ROOT_CERT (certificate mode)',
    ]);
  });

  it('refuses in production plain-http endpoints, Alipay’s sandbox gateway and the sandbox provider', () => {
    expect(paymentConfigFaults(config({ ...CERTS, ALIPAY_GATEWAY: 'http://127.0.0.1:9000/gateway.do' }))).toEqual(['ALIPAY_GATEWAY must be https in production']);
    expect(paymentConfigFaults(config({ ...CERTS, ALIPAY_GATEWAY: 'https://openapi-sandbox.dl.alipaydev.com/gateway.do' }))).toEqual([
      "ALIPAY_GATEWAY is the provider's sandbox, which moves no real money; use the production gateway",
    ]);
    expect(paymentConfigFaults(config({ ...CERTS, ALIPAY_NOTIFY_URL: 'http://market.example.com/api/payments/alipay/notify' }))).toEqual([
      'ALIPAY_NOTIFY_URL must be https in production',
    ]);
    expect(paymentConfigFaults(config({ ...CERTS, PAYGATE_PROVIDER: ['alipay', 'sandbox'], PAYOUT_PROVIDER: ['alipay', 'sandbox'] }))).toEqual([
      'PAYGATE_PROVIDER=sandbox is for development (NODE_ENV is production); enable alipay or wechatpay',
      'PAYOUT_PROVIDER=sandbox is for development (NODE_ENV is production); pay out through alipay or wechatpay',
    ]);
    // the same settings are a developer's to choose outside production
    expect(paymentConfigFaults(config({ NODE_ENV: 'development', ALIPAY_GATEWAY: 'http://127.0.0.1:9000/gateway.do', PAYGATE_PROVIDER: ['alipay', 'sandbox'] }))).toEqual([]);
  });

  it('pays out only through a channel whose keys are configured', () => {
    expect(paymentConfigFaults(config({ ...CERTS, PAYOUT_PROVIDER: ['wechatpay'] }))).toEqual(['PAYOUT_PROVIDER=wechatpay needs wechatpay in PAYGATE_PROVIDER (its keys)']);
  });
});
