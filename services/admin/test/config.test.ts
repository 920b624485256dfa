import { baseEnvShape, loadConfig } from '@market/shared/config';
import { issueCaptcha } from '../src/application/issue-captcha';
import { Argon2Passwords } from '../src/adapters/argon2-passwords';
import { adminEnv, captchaMode } from '../src/config';
import type { CaptchaStore } from '../src/persistence/captcha-store';

const shape = { ...baseEnvShape, ...adminEnv };
const productionSecrets = {
  NODE_ENV: 'production',
  ADMIN_TOKEN_SECRET: 'q'.repeat(40),
};

describe('admin configuration', () => {
  it('refuses the development bootstrap password in production', () => {
    expect(() => loadConfig(shape, productionSecrets)).toThrow(/ADMIN_BOOTSTRAP_PASSWORD/);
    expect(() => loadConfig(shape, { ...productionSecrets, ADMIN_BOOTSTRAP_PASSWORD: 'a-real-production-password' })).not.toThrow();
  });

  it('refuses a bootstrap username the CLI would refuse too', () => {
    expect(() => loadConfig(shape, { NODE_ENV: 'development', ADMIN_BOOTSTRAP_USERNAME: 'Bad Name' })).toThrow(/ADMIN_BOOTSTRAP_USERNAME/);
  });

  it('runs captchas in dev mode only in development, said by name, and demands strict anywhere else', () => {
    expect(captchaMode({ NODE_ENV: 'development' })).toBe('dev');
    expect(captchaMode({ NODE_ENV: 'development', CAPTCHA_MODE: 'strict' })).toBe('strict');
    expect(() => captchaMode({ NODE_ENV: 'test' })).toThrow(/NODE_ENV is test, not development: CAPTCHA_MODE must be set to strict/);
    expect(captchaMode({ NODE_ENV: 'test', CAPTCHA_MODE: 'strict' })).toBe('strict');
    expect(() => captchaMode({ NODE_ENV: 'production' })).toThrow(/CAPTCHA_MODE/);
    expect(() => captchaMode({ NODE_ENV: 'production', CAPTCHA_MODE: 'dev' })).toThrow(/CAPTCHA_MODE/);
    expect(captchaMode({ NODE_ENV: 'production', CAPTCHA_MODE: 'strict' })).toBe('strict');
  });

  it('hashes new passwords at the configured argon2id cost, never below OWASP’s minimum, and verifies hashes of any cost', async () => {
    const production = loadConfig(shape, { ...productionSecrets, ADMIN_BOOTSTRAP_PASSWORD: 'a-real-production-password' });
    expect([production.ADMIN_PASSWORD_MEMORY_KIB, production.ADMIN_PASSWORD_PASSES]).toEqual([65_536, 3]);
    expect(() => loadConfig(shape, { NODE_ENV: 'development', ADMIN_PASSWORD_MEMORY_KIB: '8192' })).toThrow(/ADMIN_PASSWORD_MEMORY_KIB/);
    expect(() => loadConfig(shape, { NODE_ENV: 'development', ADMIN_PASSWORD_PASSES: '1' })).toThrow(/ADMIN_PASSWORD_PASSES/);
    const strong = await new Argon2Passwords().hash('correct horse battery');
    const least = await new Argon2Passwords({ memoryKib: 19_456, passes: 2 }).hash('correct horse battery');
    expect(strong).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect(least).toMatch(/^\$argon2id\$v=19\$m=19456,p=4,t=2\$/);
    const either = new Argon2Passwords({ memoryKib: 19_456, passes: 2 });
    expect([await either.verify(strong, 'correct horse battery'), await either.verify(least, 'correct horse battery'), await either.verify(strong, 'wrong')]).toEqual([true, true, false]);
  });

  it('leaves the answer out of a strict-mode captcha', async () => {
    const stored: string[] = [];
    const captchas = { put: async (_id: string, digest: string) => void stored.push(digest) } as unknown as CaptchaStore;
    const strict = await issueCaptcha({ captchas, captchaMode: 'strict' });
    expect(strict).not.toHaveProperty('dev_text');
    expect(strict.image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(stored).toHaveLength(1);
  });
});
