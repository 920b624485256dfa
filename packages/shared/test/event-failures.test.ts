import { Conflict, DependencyFailed, DomainError, failureKind, InvalidState, NotFound, PermanentError, RateLimited, RuleBroken, TransientError } from '../src/errors';
import { decideRetry } from '../src/events/retry-policy';
import { isPermanentFailure, PermanentEventFailure } from '../src/events/inbox';
import { problems } from '../src/http/problem';
import { RemoteRefusal } from '../src/http/error-statuses';

describe('what an event handler error means for the inbox', () => {
  it('a coded domain error says its own kind, whatever its code', () => {
    expect(failureKind(new PermanentError('ORDER_UNKNOWN', 'no such order'))).toBe('permanent');
    expect(failureKind(new TransientError('LEDGER_BUSY', 'try later'))).toBe('transient');
    expect(failureKind(new DomainError('ANYTHING', 'x', 'transient'))).toBe('transient');
    expect(new PermanentError('ORDER_UNKNOWN', 'no such order')).toMatchObject({ code: 'ORDER_UNKNOWN', kind: 'permanent', name: 'PermanentError' });
  });

  it('a PermanentEventFailure, a broken rule, a missing thing and a neighbour\'s 4xx refusal are permanent', () => {
    expect(isPermanentFailure(new PermanentEventFailure('contradicts what we know'))).toBe(true);
    expect(isPermanentFailure(new RuleBroken('NOT_APPLICABLE', 'no'))).toBe(true);
    expect(isPermanentFailure(new NotFound())).toBe(true);
    expect(isPermanentFailure(new RemoteRefusal(422, 'LISTING_UNAVAILABLE', 'off the shelf'))).toBe(true);
  });

  it('races, states that can still change, limits, outages, lost connections and timeouts are transient', () => {
    expect(isPermanentFailure(new Conflict('changed meanwhile'))).toBe(false);
    expect(isPermanentFailure(new InvalidState('not paid yet'))).toBe(false);
    expect(isPermanentFailure(new RateLimited(1))).toBe(false);
    expect(isPermanentFailure(new DependencyFailed('unreachable'))).toBe(false);
    expect(isPermanentFailure(new RemoteRefusal(409, 'ORDER_CHANGED', 'raced'))).toBe(false);
    expect(isPermanentFailure(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isPermanentFailure(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(false);
    expect(isPermanentFailure(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isPermanentFailure(new Error('anything else'))).toBe(false);
  });

  it('never reads an HTTP status: a Problem thrown where a domain error belongs is retried, not parked', () => {
    expect(isPermanentFailure(problems.notFound())).toBe(false);
  });
});

describe('retry or park', () => {
  const policy = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 60_000 };

  it('parks a permanent failure at once, money or not', () => {
    expect(decideRetry('permanent', true, 1, policy)).toEqual({ action: 'park' });
    expect(decideRetry('permanent', false, 1, policy)).toEqual({ action: 'park' });
  });

  it('retries a transient failure with exponential delay, parking an event that moves no money after the last attempt', () => {
    expect([1, 2, 3, 4, 5].map((n) => decideRetry('transient', false, n, policy))).toEqual(
      [500, 1_000, 2_000, 4_000, 8_000].map((delayMs) => ({ action: 'retry', delayMs, alert: false })),
    );
    expect(decideRetry('transient', false, 6, policy)).toEqual({ action: 'park' });
  });

  it('never parks a money event on a transient failure: the delay stops at the cap and the back office is alerted from the last ordinary attempt on', () => {
    expect(decideRetry('transient', true, 5, policy)).toEqual({ action: 'retry', delayMs: 8_000, alert: false });
    expect(decideRetry('transient', true, 6, policy)).toEqual({ action: 'retry', delayMs: 16_000, alert: true });
    expect(decideRetry('transient', true, 8, policy)).toEqual({ action: 'retry', delayMs: 60_000, alert: true });
    expect(decideRetry('transient', true, 100_000, policy)).toEqual({ action: 'retry', delayMs: 60_000, alert: true });
  });
});
