import { DependencyFailed, PermanentRefusal, TransientRefusal } from '@market/shared/errors';

/**
 * The wallet's own refusals (ADR 0041), by the codes its clients have always read. The kit's
 * (`NotFound`, `Forbidden`, `InvalidState`, `Conflict`, `InvalidInput`, `DependencyFailed`) are
 * used as they are; http/error-statuses.ts gives each code below its status, and a code added here
 * without one there is a type error.
 */
export type WalletErrorCode =
  | 'CHANNEL_UNAVAILABLE'
  | 'USER_FROZEN'
  | 'REALNAME_REQUIRED'
  | 'PAYEE_NAME_MISMATCH'
  | 'WITHDRAWAL_BELOW_MINIMUM'
  | 'WITHDRAWAL_DAILY_LIMIT'
  | 'INSUFFICIENT_BALANCE'
  | 'CHARGE_EXPIRED'
  | 'SIGNATURE_INVALID'
  | 'MALFORMED_JSON'
  | 'PAYGATE_REJECTED'
  | 'PROVIDER_SAYS_PAID'
  | 'PAYEE_CAN_STILL_CONFIRM'
  | 'REFUND_EXCEEDS_PAYMENT'
  | 'BILL_NOT_READY';

/**
 * The codes of the wallet's failures that never leave it: each is caught where it can happen and
 * translated (an account short of money into INSUFFICIENT_BALANCE, figures that cannot be paid out
 * into a parked event), so the HTTP table gives them no status — one that escaped would be a bug,
 * answered 500 like any other.
 */
export type WalletFaultCode = 'LEDGER_OVERDRAWN' | 'UNSETTLEABLE_ORDER';

/** The payment or payout channel asked for is not enabled in this deployment. */
export class ChannelUnavailable extends PermanentRefusal<WalletErrorCode> {
  constructor(message: string) {
    super('CHANNEL_UNAVAILABLE', message);
  }
}

/** The user asking to be paid out is frozen. */
export class PayeeFrozen extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('USER_FROZEN', 'this account is frozen');
  }
}

/**
 * The user was frozen after asking for a withdrawal that is now being approved: it cannot be paid
 * out now, but may be once the user is unfrozen (so transient), or the back office rejects it. The
 * wire code is the same as `PayeeFrozen`'s, answered 409 rather than 403 (http/error-statuses.ts).
 */
export class PayeeFrozenSinceRequest extends TransientRefusal<WalletErrorCode> {
  constructor() {
    super('USER_FROZEN', 'the user is frozen; the withdrawal cannot be paid out now');
  }
}

/** Withdrawals go only to users whose real name is verified. */
export class RealNameRequired extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('REALNAME_REQUIRED', 'withdrawals need a verified real name');
  }
}

/** The payee name given is not the user's verified real name. */
export class PayeeNameMismatch extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('PAYEE_NAME_MISMATCH', 'the payee name must be your verified real name');
  }
}

/** The amount is below the smallest withdrawal the back office allows. */
export class WithdrawalBelowMinimum extends PermanentRefusal<WalletErrorCode> {
  constructor(minAmount: number) {
    super('WITHDRAWAL_BELOW_MINIMUM', `a withdrawal is at least ${minAmount} fen`);
  }
}

/** The amount would take the user's withdrawals of the day past the daily limit. */
export class WithdrawalDailyLimit extends PermanentRefusal<WalletErrorCode> {
  constructor(dailyLimit: number, requestedToday: number) {
    super('WITHDRAWAL_DAILY_LIMIT', `at most ${dailyLimit} fen a day; ${requestedToday} already requested today`);
  }
}

/** The user's available balance is short of what is asked; a recharge can change that, so it is not final. */
export class InsufficientBalance extends TransientRefusal<WalletErrorCode> {
  constructor(balance: number, amount: number, purpose: 'withdraw' | 'pay' | 'refund') {
    super('INSUFFICIENT_BALANCE', `available balance ${balance} is less than the ${amount} to ${purpose}`);
  }
}

/** An order's charge that arrived after its deadline: it never lands, whatever the retries (ADR 0028). */
export class ChargeExpired extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('CHARGE_EXPIRED', 'the charge arrived after its deadline; pay again');
  }
}

/** The payment gateway's callback does not carry a valid signature over its bytes. */
export class NotificationSignatureInvalid extends PermanentRefusal<WalletErrorCode> {
  constructor(reason: string) {
    super('SIGNATURE_INVALID', reason);
  }
}

/** The payment gateway's signed callback is not JSON. */
export class NotificationNotJson extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('MALFORMED_JSON', 'request body is not valid JSON');
  }
}

/** The payment gateway reported another amount than the payment's; nothing is credited. */
export class NotificationAmountMismatch extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('PAYGATE_REJECTED', 'the amount differs from the payment; nothing was credited');
  }
}

/**
 * A payment provider (Alipay, WeChat Pay) could not be heard from or gave no usable answer: the
 * wallet cannot know more than that. Answered 502 as a bad answer whatever the cause, as the wallet
 * always has for its providers.
 */
export class ProviderFailed extends DependencyFailed {
  constructor(provider: 'Alipay' | 'WeChat Pay', what: string) {
    super('bad_answer', `${provider} could not ${what}; try again shortly`);
  }
}

/**
 * Finance would resolve as failed a transfer the provider, asked once more, says it paid: the
 * withdrawal is marked paid instead (the provider's answer is the truth about the money).
 */
export class ProviderSaysPaid extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('PROVIDER_SAYS_PAID', 'the provider says this transfer was paid; the withdrawal is marked paid, not failed');
  }
}

/** Finance would resolve as failed a transfer the payee can still confirm (and so be paid): it must be cancelled at the provider first. */
export class PayeeCanStillConfirm extends PermanentRefusal<WalletErrorCode> {
  constructor() {
    super('PAYEE_CAN_STILL_CONFIRM', 'the payee can still confirm this transfer; cancel it at the provider before resolving it as failed');
  }
}

/** A refund would return more of a recharge than it paid, counting its refunds not rejected or failed. */
export class RefundExceedsPayment extends PermanentRefusal<WalletErrorCode> {
  constructor(refundable: number) {
    super('REFUND_EXCEEDS_PAYMENT', `at most ${refundable} fen of this recharge can still be refunded`);
  }
}

/** The provider has not published the bill of that day yet; asking later can succeed, so it is not final. */
export class BillNotReady extends TransientRefusal<WalletErrorCode> {
  constructor(provider: string, day: string) {
    super('BILL_NOT_READY', `${provider} has no bill for ${day} yet; try again later`);
  }
}
