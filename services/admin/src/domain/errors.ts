import { Forbidden, NotFound, PermanentRefusal, RateLimited, TransientRefusal, Unauthenticated } from '@market/shared/errors';

/**
 * Admin's own refusal codes, beside the kit's (ADR 0041). `http/error-statuses.ts` must answer
 * each, so a code added here and not there fails to compile.
 */
export type AdminErrorCode = 'CAPTCHA_INVALID' | 'CURRENT_PASSWORD_INCORRECT' | 'LAST_ACTIVE_ADMIN' | 'LAST_SUPER_ADMIN';

export class AdminNotFound extends NotFound {
  constructor() {
    super('admin not found');
  }
}

/** The admin a token was issued to has been deleted since. */
export class AdminNoLongerExists extends Unauthenticated {
  constructor() {
    super('this admin no longer exists');
  }
}

export class AdminDisabled extends Forbidden {
  constructor() {
    super('this admin account is disabled');
  }
}

/** Said alike of an unknown username and a wrong password, so neither tells which it was. */
export class InvalidCredentials extends Unauthenticated {
  constructor() {
    super('invalid username or password');
  }
}

/** The captcha answer is wrong, expired or already used (which of them is not told). */
export class CaptchaWrong extends PermanentRefusal<AdminErrorCode> {
  constructor() {
    super('CAPTCHA_INVALID', 'the captcha answer is wrong, expired or already used');
  }
}

export class CurrentPasswordWrong extends PermanentRefusal<AdminErrorCode> {
  constructor() {
    super('CURRENT_PASSWORD_INCORRECT', 'the current password is wrong');
  }
}

/** Password guesses at this username are held off, from this address or from every one (ADR 0034). */
export class LoginLocked extends RateLimited {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds);
  }
}

/** The back office must keep someone who can log in. */
export class LastActiveAdmin extends TransientRefusal<AdminErrorCode> {
  constructor() {
    super('LAST_ACTIVE_ADMIN', 'the last active admin cannot be disabled');
  }
}

/** Some active admin must keep the power to manage admins. */
export class LastSuperAdmin extends TransientRefusal<AdminErrorCode> {
  constructor(message: string) {
    super('LAST_SUPER_ADMIN', message);
  }
}
