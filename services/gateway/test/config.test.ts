import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { generateInternalKeySet, internalKeyEnv } from '@market/shared/auth';
import { loadGatewayConfig } from '../src/config';

const realSecrets = {
  ...internalKeyEnv(generateInternalKeySet('1'), 'gateway'),
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
    expect(() => loadGatewayConfig({ NODE_ENV: 'test' })).toThrow(/USER_TOKEN_SECRET, ADMIN_TOKEN_SECRET/);
    expect(() => loadGatewayConfig({})).toThrow(/NODE_ENV is production, not development: .*USER_TOKEN_SECRET, ADMIN_TOKEN_SECRET/);
    expect(() => loadGatewayConfig({ NODE_ENV: 'test', ...realSecrets, INTERNAL_SIGNING_KEY: undefined })).toThrow(
      /gateway needs its internal identity keys; missing: INTERNAL_SIGNING_KEY$/,
    );
    expect(() => loadGatewayConfig({ NODE_ENV: 'test', ...realSecrets, ADMIN_TOKEN_SECRET: undefined })).toThrow(/ADMIN_TOKEN_SECRET/);
  });

  it("lets through the production ingress every body the gateway's own limits accept, so the gateway answers an oversized one", () => {
    const file = path.resolve(__dirname, '../../../deploy/k8s/overlays/production/ingress.yaml');
    const ingress = parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => doc.toJS()).find((o) => o.kind === 'Ingress');
    const limit = String(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-body-size']);
    const units: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
    const [, amount, unit] = /^(\d+)([kmg]?)$/i.exec(limit)!;
    const bytes = Number(amount) * units[unit!.toLowerCase()]!;
    const config = loadGatewayConfig({ NODE_ENV: 'development' });
    const largest = Math.max(config.JSON_BODY_LIMIT_BYTES, config.OPEN_UPLOAD_BODY_LIMIT_BYTES, config.UPLOAD_BODY_LIMIT_BYTES);
    expect(bytes).toBeGreaterThanOrEqual(largest);
    // and not unbounded: nginx still refuses what no route of the gateway would take
    expect(bytes).toBeLessThan(2 * largest);
  });
});
