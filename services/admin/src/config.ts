import { z } from '@market/contracts';
import { ConfigError, inDevelopment, secret, tokenSecretShape } from '@market/shared/config';
import { DEFAULT_PASSWORD_COST, MINIMUM_PASSWORD_COST, type PasswordCost } from './adapters/argon2-passwords';
import { AdminUsername } from './domain/admin-user';

/** Printed at a development start so a developer can log in; production refuses it. */
export const DEV_BOOTSTRAP_PASSWORD = 'dev-only-admin-password-0000';

export const adminEnv = {
  ADMIN_TOKEN_SECRET: tokenSecretShape.ADMIN_TOKEN_SECRET,
  ADMIN_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(7200),
  ADMIN_BOOTSTRAP_USERNAME: AdminUsername.default('admin'),
  ADMIN_BOOTSTRAP_PASSWORD: secret(DEV_BOOTSTRAP_PASSWORD, 12),
  /** failed logins in a row at one username from one client address before that address is held off */
  ADMIN_LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  /** the first hold of an address (each further one doubles, up to a day), and the account lock's length */
  ADMIN_LOCKOUT_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
  /** how often money:verify runs as a job, alerting on each mismatch (log line + audit entry) */
  MONEY_VERIFY_INTERVAL_MS: z.coerce.number().int().min(50).max(86_400_000).default(600_000),
  /** how old the latest money check may be for GET /api/admin/money-check to answer it instead of running the check again */
  MONEY_CHECK_MAX_AGE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** how long after an order ends its escrow may still be held before money:verify reports it */
  MONEY_SETTLEMENT_DEADLINE_MS: z.coerce.number().int().min(0).max(7 * 86_400_000).default(600_000),
  /** failed logins in a row at one username over every address before the account itself is locked, with an alert */
  ADMIN_ACCOUNT_LOCK_FAILURES: z.coerce.number().int().min(2).max(100_000).default(100),
  /** argon2id's memory per new password hash, in KiB: at least OWASP's minimum, 19 MiB (ADR 0073) */
  ADMIN_PASSWORD_MEMORY_KIB: z.coerce.number().int().min(MINIMUM_PASSWORD_COST.memoryKib).max(1_048_576).default(DEFAULT_PASSWORD_COST.memoryKib),
  /** argon2id's passes over that memory per new password hash: at least 2 */
  ADMIN_PASSWORD_PASSES: z.coerce.number().int().min(MINIMUM_PASSWORD_COST.passes).max(10).default(DEFAULT_PASSWORD_COST.passes),
  /** `dev` answers the captcha text with the image; unset means `dev` in development and is refused elsewhere */
  CAPTCHA_MODE: z.enum(['dev', 'strict']).optional(),
};

export type CaptchaMode = 'dev' | 'strict';

/**
 * Outside development (said by name) the mode must be `strict` explicitly, so a forgotten setting
 * never ships the answer with the image.
 */
export function captchaMode(config: { NODE_ENV: string; CAPTCHA_MODE?: CaptchaMode }): CaptchaMode {
  if (!inDevelopment(config) && config.CAPTCHA_MODE !== 'strict') {
    throw new ConfigError(`NODE_ENV is ${config.NODE_ENV}, not development: CAPTCHA_MODE must be set to strict`);
  }
  return config.CAPTCHA_MODE ?? 'dev';
}

/** The cost of new admin password hashes, as configured. */
export function passwordCost(config: { ADMIN_PASSWORD_MEMORY_KIB: number; ADMIN_PASSWORD_PASSES: number }): PasswordCost {
  return { memoryKib: config.ADMIN_PASSWORD_MEMORY_KIB, passes: config.ADMIN_PASSWORD_PASSES };
}
