import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from '@market/contracts';
import { baseEnvShape, ConfigError, inDevelopment, loadConfig, secret } from '../src/config';

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
  it('runs with development defaults when NODE_ENV=development says so by name', () => {
    const config = loadConfig(shape, { NODE_ENV: 'development', PORT: '8080' });
    expect(inDevelopment(config)).toBe(true);
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

  it('refuses the published defaults under NODE_ENV=test, any other value or none: only development runs on them', () => {
    expect(() => loadConfig(shape, { NODE_ENV: 'test', PORT: '80' })).toThrow(/NODE_ENV is test, not development: .* SIGNING_SECRET, API_KEY/);
    expect(() => loadConfig(shape, { NODE_ENV: 'staging', PORT: '80' })).toThrow(/NODE_ENV is staging, not development: .* SIGNING_SECRET, API_KEY/);
    expect(() => loadConfig(shape, { PORT: '80' })).toThrow(/NODE_ENV is production, not development: .* SIGNING_SECRET, API_KEY/);
    expect(inDevelopment(loadConfig(shape, { PORT: '80', ...realSecrets }))).toBe(false);
    expect(inDevelopment(loadConfig(shape, { NODE_ENV: 'test', PORT: '80', ...realSecrets }))).toBe(false);
    expect(loadConfig(shape, { NODE_ENV: 'test', PORT: '80', ...realSecrets }).API_KEY).toBe(realSecrets.API_KEY);
    expect(loadConfig(shape, { NODE_ENV: 'development', PORT: '80' }).API_KEY).toBe('dev-only-api-key-0000000000000000000000');
  });

  it('lists every invalid variable by name without echoing values', () => {
    let error: unknown;
    try {
      loadConfig(shape, { NODE_ENV: 'development', PORT: 'eighty', API_KEY: 'short-secret-value', LOG_LEVEL: 'loud' });
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

  describe('a variable given as a file (X_FILE)', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'config-files-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, content: string) => {
      const at = path.join(dir, name);
      writeFileSync(at, content);
      return at;
    };

    it("reads the file's content, one trailing newline trimmed, and counts it as set", () => {
      const config = loadConfig(shape, {
        NODE_ENV: 'production',
        PORT: '80',
        SIGNING_SECRET_FILE: file('signing', `${realSecrets.SIGNING_SECRET}\n`),
        API_KEY_FILE: file('api-key', `${realSecrets.API_KEY}\r\n`),
        DATABASE_URL_FILE: file('database-url', 'postgres://svc:pw@db:5432/market'),
      });
      expect(config.SIGNING_SECRET).toBe(realSecrets.SIGNING_SECRET);
      expect(config.API_KEY).toBe(realSecrets.API_KEY);
      expect(config.DATABASE_URL).toBe('postgres://svc:pw@db:5432/market');
    });

    it('keeps inner whitespace and only one trailing newline', () => {
      const config = loadConfig(shape, { NODE_ENV: 'development', PORT: '80', API_KEY_FILE: file('spaced', `${realSecrets.API_KEY} tail\n\n`) });
      expect(config.API_KEY).toBe(`${realSecrets.API_KEY} tail\n`);
    });

    it('reads an empty file as an unset variable, as it does an empty variable', () => {
      expect(loadConfig(shape, { NODE_ENV: 'development', PORT: '80', LOG_LEVEL_FILE: file('empty', '\n') }).LOG_LEVEL).toBe('info');
      expect(() => loadConfig(shape, { NODE_ENV: 'production', PORT: '80', ...realSecrets, API_KEY: undefined, API_KEY_FILE: file('empty-key', '') })).toThrow(
        /must be set explicitly: API_KEY/,
      );
    });

    it('refuses both X and X_FILE, naming the variable and echoing neither value', () => {
      const both = () => loadConfig(shape, { NODE_ENV: 'production', PORT: '80', ...realSecrets, API_KEY_FILE: file('both', 'from-the-file-000000000000000000000000') });
      expect(both).toThrow(ConfigError);
      expect(both).toThrow(/API_KEY: set either API_KEY or API_KEY_FILE, not both/);
      try {
        both();
      } catch (err) {
        expect((err as Error).message).not.toContain(realSecrets.API_KEY);
        expect((err as Error).message).not.toContain('from-the-file');
      }
    });

    it('names a file it cannot read', () => {
      expect(() => loadConfig(shape, { NODE_ENV: 'production', PORT: '80', ...realSecrets, API_KEY: undefined, API_KEY_FILE: path.join(dir, 'absent') })).toThrow(
        /API_KEY_FILE: cannot read .*absent \(ENOENT\)/,
      );
    });

    it('validates the content as it would the variable', () => {
      expect(() => loadConfig(shape, { NODE_ENV: 'development', PORT_FILE: file('port', 'eighty\n') })).toThrow(/PORT/);
    });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(shape, { NODE_ENV: 'development', PORT: '1', LOG_LEVEL: '' }).LOG_LEVEL).toBe('info');
  });
});
