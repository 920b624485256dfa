import { createLogger } from '@market/shared/logging';
import { loadConfig } from '@market/shared/config';
import { AliyunSmsProvider } from '../src/adapters/aliyun-sms-provider';
import { LogSmsProvider } from '../src/adapters/log-sms-provider';
import { createProviders } from '../src/adapters/providers';
import { SandboxRealnameVerifier } from '../src/adapters/sandbox-realname-verifier';
import { TencentRealnameVerifier } from '../src/adapters/tencent-realname-verifier';
import { identityEnv } from '../src/config';
import { maskPhone, normalizePhone } from '../src/domain/phone';
import { maskIdNumber, maskRealName, REALNAME_STARTABLE, REALNAME_TRANSITIONS, realnameOutcome } from '../src/domain/realname';
import { judgeRefreshToken } from '../src/domain/refresh-token';
import { secondsUntilNextUtcDay } from '../src/domain/sms-policy';

const log = createLogger('identity-test', 'silent');
/** The identity configuration as the service would read it from this environment. */
const config = (NODE_ENV: string, env: Record<string, string> = {}) => ({ ...loadConfig(identityEnv, env), NODE_ENV });

const TENCENT_KEYS = { TENCENT_SECRET_ID: 'AKIDtest', TENCENT_SECRET_KEY: 'tencent-test-secret' };
const ALIYUN_SMS = {
  ALIYUN_ACCESS_KEY_ID: 'LTAItest',
  ALIYUN_ACCESS_KEY_SECRET: 'aliyun-test-secret',
  ALIYUN_SMS_SIGN_NAME: '租号市场',
  ALIYUN_SMS_TEMPLATE_CODE: 'SMS_123456789',
};

describe('provider configuration', () => {
  it('refuses the development providers anywhere but development: production, test, any other value', () => {
    for (const NODE_ENV of ['production', 'test', 'staging'] as const) {
      expect(() => createProviders(config(NODE_ENV), log)).toThrow(`SMS_PROVIDER=log is for development (NODE_ENV is ${NODE_ENV})`);
      expect(() => createProviders(config(NODE_ENV), log)).toThrow(`REALNAME_VERIFIER=sandbox is for development (NODE_ENV is ${NODE_ENV})`);
    }
  });

  it('runs the development providers in development, said by name, the SMS one handing codes back', async () => {
    {
      const { sms, verifier } = createProviders(config('development'), log);
      expect(sms).toBeInstanceOf(LogSmsProvider);
      expect(sms.exposesCodes).toBe(true);
      expect(verifier).toBeInstanceOf(SandboxRealnameVerifier);
      // the sandbox decides at once, by the name, so both outcomes can be tried
      expect(await verifier.verify({ realName: '张三', idNumber: '110101199003071234' })).toBe('verified');
      expect(await verifier.verify({ realName: '张失败', idNumber: '110101199003071234' })).toBe('failed');
    }
  });

  it('names exactly the settings a chosen provider is missing, in every environment', () => {
    const env = { SMS_PROVIDER: 'aliyun', REALNAME_VERIFIER: 'tencent', ALIYUN_ACCESS_KEY_ID: 'LTAItest', TENCENT_SECRET_ID: 'AKIDtest' };
    for (const NODE_ENV of ['development', 'production'] as const) {
      let message = '';
      try {
        createProviders(config(NODE_ENV, env), log);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain('SMS_PROVIDER=aliyun needs ALIYUN_ACCESS_KEY_SECRET, ALIYUN_SMS_SIGN_NAME, ALIYUN_SMS_TEMPLATE_CODE\n');
      expect(message).toMatch(/REALNAME_VERIFIER=tencent needs TENCENT_SECRET_KEY$/);
    }
    expect(() => createProviders(config('development', { REALNAME_VERIFIER: 'aliyun' }), log)).toThrow(
      'REALNAME_VERIFIER=aliyun needs ALIYUN_ACCESS_KEY_ID, ALIYUN_ACCESS_KEY_SECRET',
    );
    expect(() => createProviders(config('production', { SMS_PROVIDER: 'tencent', ...TENCENT_KEYS, TENCENT_SMS_SIGN_NAME: 'x' }), log)).toThrow(
      'SMS_PROVIDER=tencent needs TENCENT_SMS_SDK_APP_ID, TENCENT_SMS_TEMPLATE_ID',
    );
  });

  it('starts real providers once complete, with plain-http endpoints only in development', () => {
    const env = { SMS_PROVIDER: 'aliyun', REALNAME_VERIFIER: 'tencent', ...ALIYUN_SMS, ...TENCENT_KEYS };
    const providers = createProviders(config('production', env), log);
    expect(providers.sms).toBeInstanceOf(AliyunSmsProvider);
    expect(providers.sms.exposesCodes).toBe(false);
    expect(providers.verifier).toBeInstanceOf(TencentRealnameVerifier);
    const local = { ...env, ALIYUN_SMS_ENDPOINT: 'http://127.0.0.1:9', TENCENT_FACEID_ENDPOINT: 'http://127.0.0.1:9' };
    expect(createProviders(config('development', local), log).sms.exposesCodes).toBe(false);
    expect(() => createProviders(config('production', local), log)).toThrow(
      /ALIYUN_SMS_ENDPOINT must be https outside development\n {2}TENCENT_FACEID_ENDPOINT must be https outside development/,
    );
  });

  it('refuses a malformed endpoint or an unknown provider when reading the environment', () => {
    expect(() => config('development', { ALIYUN_SMS_ENDPOINT: 'https://dysmsapi.aliyuncs.com/path' })).toThrow(/ALIYUN_SMS_ENDPOINT/);
    expect(() => config('development', { SMS_PROVIDER: 'twilio' })).toThrow(/SMS_PROVIDER/);
    expect(() => config('development', { REALNAME_VERIFIER: 'nobody' })).toThrow(/REALNAME_VERIFIER/);
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
