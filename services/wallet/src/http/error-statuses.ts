import type { ErrorStatus } from '@market/shared/http';
import { PayeeFrozenSinceRequest, type WalletErrorCode } from '../domain/errors';

/**
 * Every status the wallet answers for its own refusals (ADR 0041); the kit's codes (NOT_FOUND,
 * INVALID_STATE, UPSTREAM_UNAVAILABLE, ...) are answered by the kit's table. USER_FROZEN is 403 when
 * a frozen user asks, and 409 for the approval of a withdrawal whose user was frozen since.
 */
export const walletErrorStatuses = {
  CHANNEL_UNAVAILABLE: 400,
  USER_FROZEN: (err) => (err instanceof PayeeFrozenSinceRequest ? 409 : 403),
  REALNAME_REQUIRED: 403,
  PAYEE_NAME_MISMATCH: 422,
  WITHDRAWAL_BELOW_MINIMUM: 422,
  WITHDRAWAL_DAILY_LIMIT: 422,
  INSUFFICIENT_BALANCE: 409,
  CHARGE_EXPIRED: 409,
  SIGNATURE_INVALID: 400,
  MALFORMED_JSON: 400,
  PAYGATE_REJECTED: 422,
  PROVIDER_SAYS_PAID: 409,
  PAYEE_CAN_STILL_CONFIRM: 409,
  REFUND_EXCEEDS_PAYMENT: 422,
  BILL_NOT_READY: 409,
} as const satisfies Record<WalletErrorCode, ErrorStatus>;
