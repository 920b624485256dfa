import { baseEnvShape, loadConfig } from '@market/shared/config';
import { issueCaptcha } from '../src/application/issue-captcha';
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

  it('leaves the answer out of a strict-mode captcha', async () => {
    const stored: string[] = [];
    const captchas = { put: async (_id: string, digest: string) => void stored.push(digest) } as unknown as CaptchaStore;
    const strict = await issueCaptcha({ captchas, captchaMode: 'strict' });
    expect(strict).not.toHaveProperty('dev_text');
    expect(strict.image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(stored).toHaveLength(1);
  });
});
