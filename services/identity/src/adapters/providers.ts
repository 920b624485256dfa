import { ConfigError, inDevelopment } from '@market/shared/config';
import { type Logger } from '@market/shared/logging';
import type { RealnameVerifier, SmsProvider } from '../application/ports';
import type { IdentityConfig } from '../application/deps';
import { LogSmsProvider } from './log-sms-provider';
import { SandboxRealnameVerifier } from './sandbox-realname-verifier';

/*
 * A provider's adapter, and with it the provider's SDK, is loaded only when that provider is chosen
 * (ADR 0074): each SDK is hundreds of modules a process configured for another provider would parse
 * for nothing, at every start.
 */
const aliyunSms = () => (require('./aliyun-sms-provider') as typeof import('./aliyun-sms-provider')).AliyunSmsProvider;
const tencentSms = () => (require('./tencent-sms-provider') as typeof import('./tencent-sms-provider')).TencentSmsProvider;
const aliyunVerifier = () => (require('./aliyun-realname-verifier') as typeof import('./aliyun-realname-verifier')).AliyunRealnameVerifier;
const tencentVerifier = () => (require('./tencent-realname-verifier') as typeof import('./tencent-realname-verifier')).TencentRealnameVerifier;

type ProviderConfig = Pick<
  IdentityConfig,
  | 'NODE_ENV'
  | 'SMS_PROVIDER'
  | 'REALNAME_VERIFIER'
  | 'PROVIDER_TIMEOUT_MS'
  | 'ALIYUN_ACCESS_KEY_ID'
  | 'ALIYUN_ACCESS_KEY_SECRET'
  | 'ALIYUN_SMS_ENDPOINT'
  | 'ALIYUN_SMS_SIGN_NAME'
  | 'ALIYUN_SMS_TEMPLATE_CODE'
  | 'ALIYUN_SMS_TEMPLATE_PARAM'
  | 'ALIYUN_CLOUDAUTH_ENDPOINT'
  | 'TENCENT_SECRET_ID'
  | 'TENCENT_SECRET_KEY'
  | 'TENCENT_REGION'
  | 'TENCENT_SMS_ENDPOINT'
  | 'TENCENT_SMS_SDK_APP_ID'
  | 'TENCENT_SMS_SIGN_NAME'
  | 'TENCENT_SMS_TEMPLATE_ID'
  | 'TENCENT_FACEID_ENDPOINT'
>;

/** What each provider cannot work without, and the endpoint it calls. */
const NEEDS = {
  sms: {
    log: { settings: [], endpoint: null },
    aliyun: {
      settings: ['ALIYUN_ACCESS_KEY_ID', 'ALIYUN_ACCESS_KEY_SECRET', 'ALIYUN_SMS_SIGN_NAME', 'ALIYUN_SMS_TEMPLATE_CODE'],
      endpoint: 'ALIYUN_SMS_ENDPOINT',
    },
    tencent: {
      settings: ['TENCENT_SECRET_ID', 'TENCENT_SECRET_KEY', 'TENCENT_SMS_SDK_APP_ID', 'TENCENT_SMS_SIGN_NAME', 'TENCENT_SMS_TEMPLATE_ID'],
      endpoint: 'TENCENT_SMS_ENDPOINT',
    },
  },
  realname: {
    sandbox: { settings: [], endpoint: null },
    tencent: { settings: ['TENCENT_SECRET_ID', 'TENCENT_SECRET_KEY'], endpoint: 'TENCENT_FACEID_ENDPOINT' },
    aliyun: { settings: ['ALIYUN_ACCESS_KEY_ID', 'ALIYUN_ACCESS_KEY_SECRET'], endpoint: 'ALIYUN_CLOUDAUTH_ENDPOINT' },
  },
} as const satisfies Record<string, Record<string, { settings: ReadonlyArray<keyof ProviderConfig>; endpoint: keyof ProviderConfig | null }>>;

/**
 * Everything wrong with the chosen providers' configuration, one line each. A real provider
 * without its keys could only fail every request, so it is refused everywhere; the development
 * providers would let anyone in (a code in the response, every identity verified) and a plain-http
 * endpoint would send keys and personal data in clear, so production refuses those too.
 */
export function providerConfigFaults(config: ProviderConfig): string[] {
  const faults: string[] = [];
  // anything but development, said by name, is held to production's rules
  const production = !inDevelopment(config);
  const check = (variable: string, choice: string, needs: { settings: ReadonlyArray<keyof ProviderConfig>; endpoint: keyof ProviderConfig | null }) => {
    if (production && needs.endpoint === null) {
      faults.push(`${variable}=${choice} is for development (NODE_ENV is ${config.NODE_ENV}); configure a real provider`);
    }
    const missing = needs.settings.filter((key) => !config[key]);
    if (missing.length > 0) faults.push(`${variable}=${choice} needs ${missing.join(', ')}`);
    if (production && needs.endpoint && String(config[needs.endpoint]).startsWith('http:')) {
      faults.push(`${needs.endpoint} must be https outside development`);
    }
  };
  check('SMS_PROVIDER', config.SMS_PROVIDER, NEEDS.sms[config.SMS_PROVIDER]);
  check('REALNAME_VERIFIER', config.REALNAME_VERIFIER, NEEDS.realname[config.REALNAME_VERIFIER]);
  return faults;
}

/** Builds the SMS provider and the real-name verifier, or refuses to start naming every missing or refused setting. */
export function createProviders(config: ProviderConfig, log: Logger): { sms: SmsProvider; verifier: RealnameVerifier } {
  const faults = providerConfigFaults(config);
  if (faults.length > 0) throw new ConfigError(`identity provider configuration is incomplete:\n  ${faults.join('\n  ')}`);
  // providerConfigFaults has checked that every setting read with `!` below is present.
  const tencent = {
    secretId: config.TENCENT_SECRET_ID!,
    secretKey: config.TENCENT_SECRET_KEY!,
    region: config.TENCENT_REGION,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
  };
  const sms: Record<ProviderConfig['SMS_PROVIDER'], () => SmsProvider> = {
    log: () => new LogSmsProvider(log),
    aliyun: () =>
      new (aliyunSms())(
        {
          accessKeyId: config.ALIYUN_ACCESS_KEY_ID!,
          accessKeySecret: config.ALIYUN_ACCESS_KEY_SECRET!,
          endpoint: config.ALIYUN_SMS_ENDPOINT,
          signName: config.ALIYUN_SMS_SIGN_NAME!,
          templateCode: config.ALIYUN_SMS_TEMPLATE_CODE!,
          templateParam: config.ALIYUN_SMS_TEMPLATE_PARAM,
          timeoutMs: config.PROVIDER_TIMEOUT_MS,
        },
        log,
      ),
    tencent: () =>
      new (tencentSms())(
        {
          ...tencent,
          endpoint: config.TENCENT_SMS_ENDPOINT,
          sdkAppId: config.TENCENT_SMS_SDK_APP_ID!,
          signName: config.TENCENT_SMS_SIGN_NAME!,
          templateId: config.TENCENT_SMS_TEMPLATE_ID!,
        },
        log,
      ),
  };
  const verifier: Record<ProviderConfig['REALNAME_VERIFIER'], () => RealnameVerifier> = {
    sandbox: () => new SandboxRealnameVerifier(),
    tencent: () => new (tencentVerifier())({ ...tencent, endpoint: config.TENCENT_FACEID_ENDPOINT }, log),
    aliyun: () =>
      new (aliyunVerifier())(
        {
          accessKeyId: config.ALIYUN_ACCESS_KEY_ID!,
          accessKeySecret: config.ALIYUN_ACCESS_KEY_SECRET!,
          endpoint: config.ALIYUN_CLOUDAUTH_ENDPOINT,
          timeoutMs: config.PROVIDER_TIMEOUT_MS,
        },
        log,
      ),
  };
  return { sms: sms[config.SMS_PROVIDER](), verifier: verifier[config.REALNAME_VERIFIER]() };
}
