import { type ErrorStatus } from '@market/shared/http';
import { type IdentityErrorCode } from '../domain/errors';

/** What identity's own refusals are answered with (the kit's codes are known everywhere, ADR 0041). */
export const identityErrorStatuses = {
  USER_FROZEN: 403,
  TOKEN_EXPIRED: 401,
  TOKEN_REVOKED: 401,
  SMS_CODE_INVALID: 422,
  SMS_FREQUENCY_LIMITED: 429,
  SMS_BUDGET_SPENT: 429,
  SMS_UNAVAILABLE: 503,
  REALNAME_PROVIDER_LIMITED: 429,
  REALNAME_UNAVAILABLE: 503,
} as const satisfies Record<IdentityErrorCode, ErrorStatus>;
