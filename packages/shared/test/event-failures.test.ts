import { isPermanentFailure, PermanentEventFailure } from '../src/events/inbox';
import { problems } from '../src/http/problem';

describe('what an event handler error means for the inbox', () => {
  it('a PermanentEventFailure and a coded 4xx refusal are permanent', () => {
    expect(isPermanentFailure(new PermanentEventFailure('contradicts what we know'))).toBe(true);
    expect(isPermanentFailure(problems.unprocessable('NOT_APPLICABLE', 'no'))).toBe(true);
    expect(isPermanentFailure(problems.notFound())).toBe(true);
  });

  it('"not now" client statuses, 5xx Problems, lost connections and timeouts are transient', () => {
    expect(isPermanentFailure(problems.conflict('changed meanwhile'))).toBe(false);
    expect(isPermanentFailure(problems.rateLimited(1))).toBe(false);
    expect(isPermanentFailure(problems.upstreamUnavailable(503))).toBe(false);
    expect(isPermanentFailure(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isPermanentFailure(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(false);
    expect(isPermanentFailure(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isPermanentFailure(new Error('anything else'))).toBe(false);
  });
});
