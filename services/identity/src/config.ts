import { z } from '@market/contracts';
import { dataEncryptionShape, secret, tokenSecretShape } from '@market/shared/config';

/** The identity service's environment, on top of what every service reads. */
export const identityEnv = {
  USER_TOKEN_SECRET: tokenSecretShape.USER_TOKEN_SECRET,
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(3600).default(30 * 86_400),
  /** `log` is the development provider: it answers the code in the response and refuses production */
  SMS_PROVIDER: z.enum(['log']).default('log'),
  /** HMAC key of the SMS code hashes kept in Redis, so a Redis dump does not reveal live codes */
  SMS_CODE_SECRET: secret('dev-only-sms-code-secret-000000000000000000000'),
  SMS_DAILY_LIMIT_PER_PHONE: z.coerce.number().int().min(1).default(10),
  SMS_DAILY_LIMIT_PER_IP: z.coerce.number().int().min(1).default(50),
  /** `sandbox` verifies every well-formed identity except names containing "fail"/"失败"; refuses production */
  REALNAME_VERIFIER: z.enum(['sandbox']).default('sandbox'),
  REALNAME_DAILY_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /** seals real names and id numbers at rest */
  ...dataEncryptionShape,
};
