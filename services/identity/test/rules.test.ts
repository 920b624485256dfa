import { createLogger } from '@market/shared/logging';
import { createRealnameVerifier, createSmsProvider } from '../src/adapters/providers';
import { maskPhone, normalizePhone } from '../src/domain/phone';
import { maskIdNumber, maskRealName, REALNAME_STARTABLE, REALNAME_TRANSITIONS, realnameOutcome } from '../src/domain/realname';
import { judgeRefreshToken } from '../src/domain/refresh-token';
import { secondsUntilNextUtcDay } from '../src/domain/sms-policy';

const log = createLogger('identity-test', 'silent');
const config = (NODE_ENV: string) => ({ NODE_ENV, SMS_PROVIDER: 'log' as const, REALNAME_VERIFIER: 'sandbox' as const });

describe('development adapters', () => {
  it('refuse to start in production', () => {
    expect(() => createSmsProvider(config('production'), log)).toThrow(/SMS_PROVIDER=log/);
    expect(() => createRealnameVerifier(config('production'))).toThrow(/REALNAME_VERIFIER=sandbox/);
  });

  it('run in development and tests, the SMS one handing codes back', () => {
    expect(createSmsProvider(config('development'), log).exposesCodes).toBe(true);
    expect(createRealnameVerifier(config('test'))).toBeDefined();
  });
});

describe('identity rules', () => {
  it('normalises +86 and 86 prefixes and masks the middle of a phone', () => {
    expect(['13800138000', '8613800138000', '+8613800138000', ' 13800138000 '].map(normalizePhone)).toEqual(Array(4).fill('13800138000'));
    expect(maskPhone('13800138000')).toBe('138****8000');
  });

  it('masks real names down to the last character and id numbers to their ends', () => {
    expect(maskRealName('张明')).toBe('*明');
    expect(maskRealName('欧阳娜娜')).toBe('***娜');
    expect(maskIdNumber('11010519491231002x')).toBe('1101**********002X');
  });

  it('starts real-name verification only from unverified or failed; the verifier answer is the outcome', () => {
    expect([...REALNAME_STARTABLE].sort()).toEqual(['failed', 'unverified']);
    for (const t of REALNAME_TRANSITIONS) expect(realnameOutcome(t.from, t.decision)).toBe(t.decision);
    expect(realnameOutcome('verified', 'failed')).toBeNull();
    expect(realnameOutcome('pending', 'verified')).toBeNull();
  });

  it('judges refresh tokens: revoked family first, then reuse, then expiry', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const later = new Date('2026-11-23T10:00:00Z');
    const earlier = new Date('2026-11-21T10:00:00Z');
    expect(judgeRefreshToken(undefined, now)).toBe('unknown');
    expect(judgeRefreshToken({ expires_at: later, rotated_at: earlier, session_revoked_at: earlier }, now)).toBe('revoked');
    expect(judgeRefreshToken({ expires_at: earlier, rotated_at: earlier, session_revoked_at: null }, now)).toBe('reused');
    expect(judgeRefreshToken({ expires_at: earlier, rotated_at: null, session_revoked_at: null }, now)).toBe('expired');
    expect(judgeRefreshToken({ expires_at: later, rotated_at: null, session_revoked_at: null }, now)).toBe('valid');
  });

  it('resets daily caps at 00:00 UTC', () => {
    expect(secondsUntilNextUtcDay(new Date('2026-11-22T23:59:30Z'))).toBe(30);
    expect(secondsUntilNextUtcDay(new Date('2026-11-22T00:00:00Z'))).toBe(86_400);
  });
});
