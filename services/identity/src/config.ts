import { z } from '@market/contracts';
import { dataEncryptionShape, secret, tokenSecretShape } from '@market/shared/config';

/** A provider's API address as a URL (`https://host[:port]`); http is for local simulators and refused outside development. */
const providerEndpoint = (defaultUrl: string) =>
  z
    .string()
    .url()
    .refine((value) => /^https?:\/\/[^/?#]+\/?$/.test(value), 'must be http(s)://host[:port] with no path')
    .default(defaultUrl);

/** A credential or setting a provider needs; optional here, required by the provider that uses it (adapters/providers.ts). */
const providerSetting = () => z.string().trim().min(1).optional();

/** The identity service's environment, on top of what every service reads. */
export const identityEnv = {
  USER_TOKEN_SECRET: tokenSecretShape.USER_TOKEN_SECRET,
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(3600).default(30 * 86_400),
  /** how often a replica checks that Redis still holds the users' revocations (frozen users' blocks, recently ended sessions), writing them again if it lost them */
  REVOCATIONS_CHECK_MS: z.coerce.number().int().min(100).default(10_000),
  /** `log` is the development provider: it answers the code in the response and is refused outside development */
  SMS_PROVIDER: z.enum(['log', 'aliyun', 'tencent']).default('log'),
  /** HMAC key of the SMS code hashes kept in Redis, so a Redis dump does not reveal live codes */
  SMS_CODE_SECRET: secret('dev-only-sms-code-secret-000000000000000000000'),
  SMS_DAILY_LIMIT_PER_PHONE: z.coerce.number().int().min(1).default(10),
  /** counted per IPv4 address or IPv6 /64 */
  SMS_DAILY_LIMIT_PER_IP: z.coerce.number().int().min(1).default(50),
  /** login codes sent per UTC hour over every phone and address: a cap on what a flood from many addresses can cost */
  SMS_HOURLY_BUDGET: z.coerce.number().int().min(1).default(2000),
  /** `sandbox` verifies every well-formed identity except names containing "fail"/"失败"; refused outside development */
  REALNAME_VERIFIER: z.enum(['sandbox', 'tencent', 'aliyun']).default('sandbox'),
  REALNAME_DAILY_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /** longest wait for an SMS or real-name provider's answer; past it the request gets a 503 */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),

  /** Alibaba Cloud: one AccessKey pair (a RAM user allowed SendSms and Id2MetaVerify only) */
  ALIYUN_ACCESS_KEY_ID: providerSetting(),
  ALIYUN_ACCESS_KEY_SECRET: providerSetting(),
  ALIYUN_SMS_ENDPOINT: providerEndpoint('https://dysmsapi.aliyuncs.com'),
  ALIYUN_SMS_SIGN_NAME: providerSetting(),
  ALIYUN_SMS_TEMPLATE_CODE: providerSetting(),
  /** the variable of the approved template that carries the code (`${code}`) */
  ALIYUN_SMS_TEMPLATE_PARAM: z.string().regex(/^\w{1,32}$/).default('code'),
  ALIYUN_CLOUDAUTH_ENDPOINT: providerEndpoint('https://cloudauth.aliyuncs.com'),

  /** Tencent Cloud: one SecretId/SecretKey pair (a CAM user allowed sms:SendSms and faceid:IdCardVerification) */
  TENCENT_SECRET_ID: providerSetting(),
  TENCENT_SECRET_KEY: providerSetting(),
  TENCENT_REGION: z.string().regex(/^[a-z]+-[a-z-]+$/).default('ap-guangzhou'),
  TENCENT_SMS_ENDPOINT: providerEndpoint('https://sms.tencentcloudapi.com'),
  TENCENT_SMS_SDK_APP_ID: providerSetting(),
  TENCENT_SMS_SIGN_NAME: providerSetting(),
  TENCENT_SMS_TEMPLATE_ID: providerSetting(),
  TENCENT_FACEID_ENDPOINT: providerEndpoint('https://faceid.tencentcloudapi.com'),

  /** seals real names and id numbers at rest */
  ...dataEncryptionShape,
};
