import { PermanentRefusal, TransientRefusal } from '@market/shared/errors';

/**
 * The codes of orders' own refusals; `http/error-statuses.ts` gives each its status, and a code
 * added here without one there is a type error. The kit's refusals (NotFound, Forbidden,
 * InvalidState, InvalidInput …) keep the kit's codes.
 */
export type OrdersErrorCode =
  | 'CHARGE_PENDING'
  | 'LISTING_UNAVAILABLE'
  | 'ORDER_CHANGED'
  | 'REALNAME_REQUIRED'
  | 'USER_FROZEN'
  | 'REVEAL_APPROVAL_REQUIRED'
  | 'REVEAL_APPROVER_INVOLVED'
  | 'RENEWAL_NOT_ALLOWED'
  | 'RENEWAL_TOO_LATE'
  | 'RENEWAL_OVER_MAX_HOURS'
  | 'RENEWAL_PENDING'
  | 'RENTER_LIMIT_REACHED'
  | 'LISTING_UNAVAILABLE_TO_YOU'
  | 'ORDER_NOT_COMPLETED'
  | 'RATING_WINDOW_CLOSED'
  | 'ALREADY_RATED'
  | 'LISTING_AWAITING_ROTATION';

/** The listing is not online, or another order holds it; it may be free again later. */
export class ListingUnavailable extends TransientRefusal<OrdersErrorCode> {
  constructor() {
    super('LISTING_UNAVAILABLE', 'listing is not available for rent');
  }
}

/** The renter's account is frozen: it cannot rent until the back office lifts the freeze. */
export class RenterFrozen extends PermanentRefusal<OrdersErrorCode> {
  constructor() {
    super('USER_FROZEN', 'this account is frozen');
  }
}

/** Renting needs a verified real name while `order.require_realname` is on. */
export class RealnameRequired extends PermanentRefusal<OrdersErrorCode> {
  constructor() {
    super('REALNAME_REQUIRED', 'verify your real name before renting');
  }
}

/**
 * An admin's decision met an order that moved after the request arrived, or that is not in the
 * state the admin saw: another move won the race, and the admin must look again.
 */
export class OrderChanged extends TransientRefusal<OrdersErrorCode> {
  constructor(message: string) {
    super('ORDER_CHANGED', message);
  }
}

/**
 * The back office may not end or hold an unpaid order while the wallet's answer to its charge is
 * unknown: the charge may still land, and the reconciler settles it only on an order waiting for
 * payment. Once the reconciler has learnt the outcome (within the charge window) the admin decides
 * on an order that is either paid or not.
 */
export class ChargePending extends TransientRefusal<OrdersErrorCode> {
  constructor() {
    super('CHARGE_PENDING', 'the order has a charge whose outcome is not known yet; decide once it is paid or its charge has lapsed');
  }
}

/** A reveal of an order without an open dispute needs the caller's own approved, unused reveal request (ADR 0056). */
export class RevealApprovalRequired extends TransientRefusal<OrdersErrorCode> {
  constructor(message: string) {
    super('REVEAL_APPROVAL_REQUIRED', message);
  }
}

/** The requester of a reveal, or the admin who marked the order abnormal, may not approve it: a second admin must (ADR 0056). */
export class RevealApproverInvolved extends PermanentRefusal<OrdersErrorCode> {
  constructor(message: string) {
    super('REVEAL_APPROVER_INVOLVED', message);
  }
}

/** The owner switched renewal off for the listing (its `allow_renewal`). */
export class RenewalNotAllowed extends PermanentRefusal<OrdersErrorCode> {
  constructor() {
    super('RENEWAL_NOT_ALLOWED', 'the owner does not allow renewing orders of this listing');
  }
}

/** Too little of the rental remains (`order.renewal_min_remaining_minutes` before ends_at) to extend it. */
export class RenewalTooLate extends PermanentRefusal<OrdersErrorCode> {
  constructor(minutes: number) {
    super('RENEWAL_TOO_LATE', `an order can be renewed until ${minutes} minutes before it ends`);
  }
}

/** The renewed order would be longer than the listing allows. */
export class RenewalOverMaxHours extends PermanentRefusal<OrdersErrorCode> {
  constructor(maxHours: number, hours: number) {
    super('RENEWAL_OVER_MAX_HOURS', `the listing allows at most ${maxHours} hours in all; this order has ${hours}`);
  }
}

/**
 * A renewal's charge is under way and its outcome not known yet: the order does not move until it is
 * (the wallet's escrow and the order must agree on the amount, ADR 0065); the reconciler learns it
 * within the charge window.
 */
export class RenewalPending extends TransientRefusal<OrdersErrorCode> {
  constructor() {
    super('RENEWAL_PENDING', 'a renewal of this order is being charged; try again in a moment');
  }
}

/** A new renter reached one of their limits (ADR 0065); the problem names the limit by its configuration key and value. */
export class RenterLimitReached extends TransientRefusal<OrdersErrorCode> {
  constructor(name: string, value: number, message: string) {
    super('RENTER_LIMIT_REACHED', message, { limit: { name, value } });
  }
}

/**
 * The listing's owner blocked this renter. Said without naming who or why (ADR 0065): the renter learns
 * only that this listing is not for them.
 */
export class ListingUnavailableToYou extends PermanentRefusal<OrdersErrorCode> {
  constructor() {
    super('LISTING_UNAVAILABLE_TO_YOU', 'this listing cannot be rented by you');
  }
}

/** Only a completed order can be rated (ADR 0066); a cancelled or closed one never can. */
export class OrderNotCompleted extends PermanentRefusal<OrdersErrorCode> {
  constructor() {
    super('ORDER_NOT_COMPLETED', 'only a completed order can be rated');
  }
}

/** The order's rating window (rating.window_days from completion) has closed. */
export class RatingWindowClosed extends PermanentRefusal<OrdersErrorCode> {
  constructor() {
    super('RATING_WINDOW_CLOSED', 'the time to rate this order has passed');
  }
}

/** Each party rates an order once. */
export class AlreadyRated extends PermanentRefusal<OrdersErrorCode> {
  constructor() {
    super('ALREADY_RATED', 'you have rated this order already');
  }
}

/** The last rental handed the account over and its owner has not changed the password since (ADR 0066). */
export class ListingAwaitingRotation extends TransientRefusal<OrdersErrorCode> {
  constructor() {
    super('LISTING_AWAITING_ROTATION', 'the owner has not yet changed the account password after the last rental; try again later');
  }
}
