import { baseEnvShape, loadConfig } from '@market/shared/config';
import { createLogger } from '@market/shared/logging';
import { startWechatPaySimulator, type WechatPaySimulator } from '@market/testkit';
import { createPaymentChannels } from '../src/adapters/providers';
import { walletEnv } from '../src/config';
import { wechatPayEnv } from './support';

describe('the WeChat Pay channel’s configuration', () => {
  let sim: WechatPaySimulator;
  const log = createLogger('wallet', 'silent');
  const load = (env: Record<string, string | undefined>) => loadConfig({ ...baseEnvShape, ...walletEnv }, { NODE_ENV: 'development', ...env });
  // development: the simulator answers on plain http, which only development accepts; the key checks hold in every environment
  const channels = (env: Record<string, string | undefined>) => createPaymentChannels(load(env), null as never, log);

  beforeAll(async () => {
    sim = await startWechatPaySimulator();
  });
  afterAll(() => sim?.stop());

  it('starts in each verification mode, registering payments, payouts, refunds and bills', () => {
    for (const mode of ['publicKey', 'certificate', 'both'] as const) {
      const made = channels(wechatPayEnv(sim, mode));
      expect([made.gateways.has('wechatpay'), made.payouts.has('wechatpay'), made.refunds.has('wechatpay'), made.bills.has('wechatpay')]).toEqual([true, true, true, true]);
    }
    // the merchant serial may be given instead of the merchant certificate
    expect(() => channels({ ...wechatPayEnv(sim), WECHATPAY_CERTIFICATE: undefined, WECHATPAY_MERCHANT_SERIAL: sim.merchantSerial })).not.toThrow();
  });

  it('refuses to start with an incomplete WeChat Pay configuration, naming what is missing', () => {
    expect(() => channels({ ...wechatPayEnv(sim), WECHATPAY_PUBLIC_KEY_ID: undefined })).toThrow('the wechatpay channel needs WECHATPAY_PUBLIC_KEY_ID');
    expect(() => channels({ ...wechatPayEnv(sim), WECHATPAY_PUBLIC_KEY: undefined })).toThrow('the wechatpay channel needs WECHATPAY_PUBLIC_KEY');
    expect(() => channels({ ...wechatPayEnv(sim), WECHATPAY_PUBLIC_KEY: undefined, WECHATPAY_PUBLIC_KEY_ID: undefined })).toThrow(
      'WECHATPAY_PUBLIC_KEY with WECHATPAY_PUBLIC_KEY_ID, or WECHATPAY_PLATFORM_CERTIFICATES',
    );
    expect(() => channels({ ...wechatPayEnv(sim), WECHATPAY_CERTIFICATE: undefined })).toThrow('WECHATPAY_MERCHANT_SERIAL (or WECHATPAY_CERTIFICATE)');
    expect(() => channels({ ...wechatPayEnv(sim, 'certificate'), WECHATPAY_PLATFORM_CERTIFICATES: 'not a certificate' })).toThrow('WECHATPAY_PLATFORM_CERTIFICATES as PEM');
    const broken = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----';
    expect(() => channels({ ...wechatPayEnv(sim, 'both'), WECHATPAY_PLATFORM_CERTIFICATES: broken, WECHATPAY_PUBLIC_KEY: 'not a key' })).toThrow(
      'WECHATPAY_PUBLIC_KEY as PEM, WECHATPAY_PLATFORM_CERTIFICATES as PEM',
    );
    expect(() => load({ WECHATPAY_PUBLIC_KEY_ID: 'PLATFORM_SERIAL' })).toThrow(/WECHATPAY_PUBLIC_KEY_ID/);
    expect(() => load({ WECHATPAY_TRANSFER_REPORT_INFOS: '[{"info_type":"岗位类型"}]' })).toThrow(/WECHATPAY_TRANSFER_REPORT_INFOS/);
    expect(load({}).WECHATPAY_TRANSFER_SCENE_ID).toBe('1005');
  });
});
