import { type DomainError } from '@market/shared/errors';
import { problemOfDomainError } from '@market/shared/http';
import {
  RealnameProviderThrottled,
  RealnameProviderUnavailable,
  RefreshTokenExpired,
  RefreshTokenRevoked,
  SmsCodeWrong,
  SmsProviderThrottled,
  SmsProviderUnavailable,
  UserFrozen,
  UserNotFound,
} from '../src/domain/errors';
import { identityErrorStatuses } from '../src/http/error-statuses';

/** What the client reads of a refusal: status, title, code, detail and the headers that go with it. */
function answer(err: DomainError) {
  const problem = problemOfDomainError(err, identityErrorStatuses);
  if (!problem) throw new Error(`${err.code} has no status`);
  const { status, title, code, detail } = problem.toBody('/any');
  return { status, title, code, detail, headers: problem.headers, kind: err.kind };
}

describe("identity's refusals at the HTTP edge", () => {
  it('answer with the statuses, titles, codes and details the API has always used', () => {
    expect(answer(new UserFrozen())).toEqual({ status: 403, title: 'Forbidden', code: 'USER_FROZEN', detail: 'this account is frozen', kind: 'permanent' });
    expect(answer(new UserNotFound())).toEqual({ status: 404, title: 'Not found', code: 'NOT_FOUND', detail: 'user not found', kind: 'permanent' });
    expect(answer(new RefreshTokenRevoked())).toEqual({ status: 401, title: 'Unauthenticated', code: 'TOKEN_REVOKED', detail: 'token has been revoked', kind: 'permanent' });
    expect(answer(new RefreshTokenExpired())).toEqual({ status: 401, title: 'Unauthenticated', code: 'TOKEN_EXPIRED', detail: 'token has expired', kind: 'permanent' });
    expect(answer(new SmsCodeWrong())).toEqual({
      status: 422,
      title: 'Unprocessable request',
      code: 'SMS_CODE_INVALID',
      detail: 'the code is wrong, expired or already used',
      kind: 'permanent',
    });
  });

  it("say when a provider's limit lifts, and that an unavailable provider is worth trying again", () => {
    expect(answer(new SmsProviderThrottled(60))).toEqual({
      status: 429,
      title: 'Too many requests',
      code: 'SMS_FREQUENCY_LIMITED',
      detail: 'the SMS provider refuses more messages to this phone for now; try again later',
      headers: { 'Retry-After': '60' },
      kind: 'transient',
    });
    expect(answer(new RealnameProviderThrottled(3600))).toEqual({
      status: 429,
      title: 'Too many requests',
      code: 'REALNAME_PROVIDER_LIMITED',
      detail: 'this identity was checked too often today; try again tomorrow',
      headers: { 'Retry-After': '3600' },
      kind: 'transient',
    });
    expect(answer(new SmsProviderUnavailable())).toEqual({
      status: 503,
      title: 'Service unavailable',
      code: 'SMS_UNAVAILABLE',
      detail: 'the SMS provider is unavailable; no code was sent, try again shortly',
      kind: 'transient',
    });
    expect(answer(new RealnameProviderUnavailable())).toEqual({
      status: 503,
      title: 'Service unavailable',
      code: 'REALNAME_UNAVAILABLE',
      detail: 'the real-name verification provider is unavailable; nothing was recorded, try again shortly',
      kind: 'transient',
    });
  });
});
