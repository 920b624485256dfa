import { NotFound, PermanentError, RateLimited, TransientError } from '@market/shared/errors';

/**
 * Identity's own refusal codes, beside the kit's (ADR 0041). `http/error-statuses.ts` must answer
 * each, so a code added here and not there fails to compile.
 */
export type IdentityErrorCode =
  | 'USER_FROZEN'
  | 'TOKEN_EXPIRED'
  | 'TOKEN_REVOKED'
  | 'SMS_CODE_INVALID'
  | 'SMS_FREQUENCY_LIMITED'
  | 'SMS_BUDGET_SPENT'
  | 'SMS_UNAVAILABLE'
  | 'REALNAME_PROVIDER_LIMITED'
  | 'REALNAME_UNAVAILABLE';

export class UserNotFound extends NotFound {
  constructor() {
    super('user not found');
  }
}

/** A frozen user neither logs in, refreshes, nor has codes sent to their phone. */
export class UserFrozen extends PermanentError {
  constructor() {
    super('USER_FROZEN' satisfies IdentityErrorCode, 'this account is frozen');
  }
}

/** The refresh token's session is over: logged out, frozen, or its family ended on reuse. */
export class RefreshTokenRevoked extends PermanentError {
  constructor() {
    super('TOKEN_REVOKED' satisfies IdentityErrorCode, 'token has been revoked');
  }
}

export class RefreshTokenExpired extends PermanentError {
  constructor() {
    super('TOKEN_EXPIRED' satisfies IdentityErrorCode, 'token has expired');
  }
}

/** The login code is wrong, expired or already used (which of them is not told). */
export class SmsCodeWrong extends PermanentError {
  constructor() {
    super('SMS_CODE_INVALID' satisfies IdentityErrorCode, 'the code is wrong, expired or already used');
  }
}

/**
 * Every login code this hour allows (SMS_HOURLY_BUDGET, over all phones and addresses) has gone
 * out: a flood from many addresses at once spends money on messages, so it stops at a cost the
 * operator chose until the hour turns.
 */
export class SmsBudgetSpent extends RateLimited {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, 'no more login codes can be sent this hour; try again later', 'SMS_BUDGET_SPENT' satisfies IdentityErrorCode);
  }
}

/** The SMS provider's own frequency limit for this phone; worth trying after the resend interval. */
export class SmsProviderThrottled extends RateLimited {
  constructor(retryAfterSeconds: number) {
    super(
      retryAfterSeconds,
      'the SMS provider refuses more messages to this phone for now; try again later',
      'SMS_FREQUENCY_LIMITED' satisfies IdentityErrorCode,
    );
  }
}

export class SmsProviderUnavailable extends TransientError {
  constructor() {
    super('SMS_UNAVAILABLE' satisfies IdentityErrorCode, 'the SMS provider is unavailable; no code was sent, try again shortly');
  }
}

/** The verifier's own daily limit on checks of one identity; it lifts at the next UTC day. */
export class RealnameProviderThrottled extends RateLimited {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, 'this identity was checked too often today; try again tomorrow', 'REALNAME_PROVIDER_LIMITED' satisfies IdentityErrorCode);
  }
}

export class RealnameProviderUnavailable extends TransientError {
  constructor() {
    super(
      'REALNAME_UNAVAILABLE' satisfies IdentityErrorCode,
      'the real-name verification provider is unavailable; nothing was recorded, try again shortly',
    );
  }
}
