import { NotFound, PermanentRefusal, TransientRefusal } from '@market/shared/errors';

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
export class UserFrozen extends PermanentRefusal<IdentityErrorCode> {
  constructor() {
    super('USER_FROZEN', 'this account is frozen');
  }
}

/** The refresh token's session is over: logged out, frozen, or its family ended on reuse. */
export class RefreshTokenRevoked extends PermanentRefusal<IdentityErrorCode> {
  constructor() {
    super('TOKEN_REVOKED', 'token has been revoked');
  }
}

export class RefreshTokenExpired extends PermanentRefusal<IdentityErrorCode> {
  constructor() {
    super('TOKEN_EXPIRED', 'token has expired');
  }
}

/** The login code is wrong, expired or already used (which of them is not told). */
export class SmsCodeWrong extends PermanentRefusal<IdentityErrorCode> {
  constructor() {
    super('SMS_CODE_INVALID', 'the code is wrong, expired or already used');
  }
}

/**
 * Every login code this hour allows (SMS_HOURLY_BUDGET, over all phones and addresses) has gone
 * out: a flood from many addresses at once spends money on messages, so it stops at a cost the
 * operator chose until the hour turns.
 */
export class SmsBudgetSpent extends TransientRefusal<IdentityErrorCode> {
  constructor(retryAfterSeconds: number) {
    super('SMS_BUDGET_SPENT', 'no more login codes can be sent this hour; try again later', { retryAfterSeconds });
  }
}

/** The SMS provider's own frequency limit for this phone; worth trying after the resend interval. */
export class SmsProviderThrottled extends TransientRefusal<IdentityErrorCode> {
  constructor(retryAfterSeconds: number) {
    super('SMS_FREQUENCY_LIMITED', 'the SMS provider refuses more messages to this phone for now; try again later', { retryAfterSeconds });
  }
}

export class SmsProviderUnavailable extends TransientRefusal<IdentityErrorCode> {
  constructor() {
    super('SMS_UNAVAILABLE', 'the SMS provider is unavailable; no code was sent, try again shortly');
  }
}

/** The verifier's own daily limit on checks of one identity; it lifts at the next UTC day. */
export class RealnameProviderThrottled extends TransientRefusal<IdentityErrorCode> {
  constructor(retryAfterSeconds: number) {
    super('REALNAME_PROVIDER_LIMITED', 'this identity was checked too often today; try again tomorrow', { retryAfterSeconds });
  }
}

export class RealnameProviderUnavailable extends TransientRefusal<IdentityErrorCode> {
  constructor() {
    super('REALNAME_UNAVAILABLE', 'the real-name verification provider is unavailable; nothing was recorded, try again shortly');
  }
}
