import { loadGatewayConfig } from '../src/config';

const realSecrets = {
  INTERNAL_ASSERTION_SECRET: 'a-real-assertion-secret-of-enough-length-123',
  USER_TOKEN_SECRET: 'a-real-user-token-secret-of-enough-length-45',
  ADMIN_TOKEN_SECRET: 'a-real-admin-token-secret-of-enough-length-6',
};

describe('gateway configuration', () => {
  it('listens on 127.0.0.1 in development unless told otherwise, on every address elsewhere', () => {
    expect(loadGatewayConfig({ NODE_ENV: 'development' }).HOST).toBe('127.0.0.1');
    expect(loadGatewayConfig({ ...realSecrets }).HOST).toBe('0.0.0.0');
    expect(loadGatewayConfig({ NODE_ENV: 'development', HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
    expect(loadGatewayConfig({ NODE_ENV: 'production', ...realSecrets }).HOST).toBe('0.0.0.0');
    expect(loadGatewayConfig({ NODE_ENV: 'test', ...realSecrets, HOST: '10.0.0.5' }).HOST).toBe('10.0.0.5');
  });

  it('refuses the published token secrets under NODE_ENV=test or unset as in production', () => {
    expect(() => loadGatewayConfig({ NODE_ENV: 'test' })).toThrow(/INTERNAL_ASSERTION_SECRET, USER_TOKEN_SECRET, ADMIN_TOKEN_SECRET/);
    expect(() => loadGatewayConfig({})).toThrow(/NODE_ENV is production, not development: .*INTERNAL_ASSERTION_SECRET, USER_TOKEN_SECRET, ADMIN_TOKEN_SECRET/);
    expect(() => loadGatewayConfig({ NODE_ENV: 'test', ...realSecrets, ADMIN_TOKEN_SECRET: undefined })).toThrow(/ADMIN_TOKEN_SECRET/);
  });
});
