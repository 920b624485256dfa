import { type ErrorStatus } from '@market/shared/http';
import { type AdminErrorCode } from '../domain/errors';

/** What admin's own refusals are answered with (the kit's codes are known everywhere, ADR 0041). */
export const adminErrorStatuses = {
  CAPTCHA_INVALID: 422,
  CURRENT_PASSWORD_INCORRECT: 422,
  LAST_ACTIVE_ADMIN: 409,
  LAST_SUPER_ADMIN: 409,
} as const satisfies Record<AdminErrorCode, ErrorStatus>;
