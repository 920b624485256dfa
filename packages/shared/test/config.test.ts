import { z } from '@market/contracts';
import { baseEnvShape, ConfigError, loadConfig, secret } from '../src/config';

const shape = {
  ...baseEnvShape,
  SIGNING_SECRET: secret('dev-only-signing-secret-000000000000000000'),
  API_KEY: secret('dev-only-api-key-0000000000000000000000'),
  PORT: z.coerce.number().int(),
};
const realSecrets = {
  SIGNING_SECRET: 'a-real-signing-secret-of-enough-length-1234',
  API_KEY: 'a-real-api-key-of-enough-length-1234567890',
};

describe('configuration from the environment', () => {
  it('runs with development defaults when nothing is configured', () => {
    const config = loadConfig(shape, { PORT: '8080' });
    expect(config.NODE_ENV).toBe('development');
    expect(config.API_KEY).toBe('dev-only-api-key-0000000000000000000000');
    expect(config.DATABASE_URL).toMatch(/^postgres:\/\//);
  });

  it('refuses to start in production while a secret is left at its development default', () => {
    expect(() => loadConfig(shape, { NODE_ENV: 'production', PORT: '80' })).toThrow(ConfigError);
    expect(() => loadConfig(shape, { NODE_ENV: 'production', PORT: '80' })).toThrow(
      /must be set explicitly: SIGNING_SECRET, API_KEY/,
    );
    expect(() => loadConfig(shape, { NODE_ENV: 'production', PORT: '80', SIGNING_SECRET: realSecrets.SIGNING_SECRET })).toThrow(
      /API_KEY/,
    );
    expect(loadConfig(shape, { NODE_ENV: 'production', PORT: '80', ...realSecrets }).API_KEY).toBe(realSecrets.API_KEY);
  });

  it('refuses the published defaults under NODE_ENV=test too: only development runs on them', () => {
    expect(() => loadConfig(shape, { NODE_ENV: 'test', PORT: '80' })).toThrow(/in test these secrets must be set explicitly: SIGNING_SECRET, API_KEY/);
    expect(loadConfig(shape, { NODE_ENV: 'test', PORT: '80', ...realSecrets }).API_KEY).toBe(realSecrets.API_KEY);
    expect(loadConfig(shape, { NODE_ENV: 'development', PORT: '80' }).API_KEY).toBe('dev-only-api-key-0000000000000000000000');
  });

  it('lists every invalid variable by name without echoing values', () => {
    let error: unknown;
    try {
      loadConfig(shape, { PORT: 'eighty', API_KEY: 'short-secret-value', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/API_KEY/);
    expect(message).toMatch(/LOG_LEVEL/);
    expect(message).not.toContain('short-secret-value');
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(shape, { PORT: '1', LOG_LEVEL: '' }).LOG_LEVEL).toBe('info');
  });
});
