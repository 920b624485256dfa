import type { ErrorStatus } from '@market/shared/http';
import type { OrdersErrorCode } from '../domain/errors';

/** What the HTTP edge answers for each of orders' own refusal codes (ADR 0041); the kit's codes are known already. */
export const ordersErrorStatuses = {
  ALREADY_RATED: 409,
  CHARGE_PENDING: 409,
  LISTING_AWAITING_ROTATION: 409,
  LISTING_UNAVAILABLE: 409,
  ORDER_CHANGED: 409,
  ORDER_NOT_COMPLETED: 409,
  RATING_WINDOW_CLOSED: 409,
  REALNAME_REQUIRED: 403,
  REVEAL_APPROVAL_REQUIRED: 409,
  REVEAL_APPROVER_INVOLVED: 403,
  USER_FROZEN: 403,
  RENEWAL_NOT_ALLOWED: 409,
  RENEWAL_TOO_LATE: 409,
  RENEWAL_OVER_MAX_HOURS: 409,
  RENEWAL_PENDING: 409,
  RENTER_LIMIT_REACHED: 409,
  LISTING_UNAVAILABLE_TO_YOU: 403,
} as const satisfies Record<OrdersErrorCode, ErrorStatus>;
