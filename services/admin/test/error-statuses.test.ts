import { type DomainError } from '@market/shared/errors';
import { problemOfDomainError } from '@market/shared/http';
import {
  AdminDisabled,
  AdminNoLongerExists,
  AdminNotFound,
  CaptchaWrong,
  CurrentPasswordWrong,
  InvalidCredentials,
  LastActiveAdmin,
  LastSuperAdmin,
  LoginLocked,
} from '../src/domain/errors';
import { adminErrorStatuses } from '../src/http/error-statuses';

/** What the client reads of a refusal: status, title, code, detail and the headers that go with it. */
function answer(err: DomainError) {
  const problem = problemOfDomainError(err, adminErrorStatuses);
  if (!problem) throw new Error(`${err.code} has no status`);
  const { status, title, code, detail } = problem.toBody('/any');
  return { status, title, code, detail, headers: problem.headers };
}

describe("admin's refusals at the HTTP edge", () => {
  it('answer with the statuses, titles, codes and details the API has always used', () => {
    expect(answer(new CaptchaWrong())).toEqual({
      status: 422,
      title: 'Unprocessable request',
      code: 'CAPTCHA_INVALID',
      detail: 'the captcha answer is wrong, expired or already used',
    });
    expect(answer(new CurrentPasswordWrong())).toEqual({ status: 422, title: 'Unprocessable request', code: 'CURRENT_PASSWORD_INCORRECT', detail: 'the current password is wrong' });
    expect(answer(new LastActiveAdmin())).toEqual({ status: 409, title: 'Conflict', code: 'LAST_ACTIVE_ADMIN', detail: 'the last active admin cannot be disabled' });
    expect(answer(new LastSuperAdmin('the last active super admin keeps that role'))).toEqual({
      status: 409,
      title: 'Conflict',
      code: 'LAST_SUPER_ADMIN',
      detail: 'the last active super admin keeps that role',
    });
    expect(answer(new AdminNotFound())).toEqual({ status: 404, title: 'Not found', code: 'NOT_FOUND', detail: 'admin not found' });
    expect(answer(new AdminDisabled())).toEqual({ status: 403, title: 'Forbidden', code: 'FORBIDDEN', detail: 'this admin account is disabled' });
    expect(answer(new AdminNoLongerExists())).toEqual({ status: 401, title: 'Unauthenticated', code: 'UNAUTHENTICATED', detail: 'this admin no longer exists' });
    expect(answer(new InvalidCredentials())).toEqual({ status: 401, title: 'Unauthenticated', code: 'UNAUTHENTICATED', detail: 'invalid username or password' });
  });

  it('tell a held-off login when to try again', () => {
    expect(answer(new LoginLocked(900))).toEqual({
      status: 429,
      title: 'Too many requests',
      code: 'RATE_LIMITED',
      detail: 'too many requests; slow down',
      headers: { 'Retry-After': '900' },
    });
  });
});
