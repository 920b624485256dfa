import { createAssertionVerifier, generateInternalKeySet, internalKeyEnv, internalKeysOf, parsePublicKeys, signAssertion, type Identity } from '../src/auth';
import { ConfigError } from '../src/config';

const user: Identity = { kind: 'user', sub: 'u', sid: 's', ip: null };
const target = { audience: 'orders', method: 'GET', path: '/api/orders' } as const;

describe('internal identity keys from the configuration', () => {
  it('derives the development keys only in development, and only when no key is configured', () => {
    const keys = internalKeysOf('orders', { NODE_ENV: 'development' });
    expect(keys.signing.kid).toBe('orders:development');
    expect([...keys.publicKeys.keys()]).toContain('gateway:development');
    for (const mode of ['production', 'test']) {
      expect(() => internalKeysOf('orders', { NODE_ENV: mode })).toThrow(
        new ConfigError('orders needs its internal identity keys; missing: INTERNAL_SIGNING_KEY, INTERNAL_SIGNING_KEY_ID, INTERNAL_PUBLIC_KEYS'),
      );
    }
    const set = generateInternalKeySet('1');
    const { INTERNAL_SIGNING_KEY_ID, INTERNAL_PUBLIC_KEYS } = internalKeyEnv(set, 'orders');
    expect(() => internalKeysOf('orders', { NODE_ENV: 'development', INTERNAL_SIGNING_KEY_ID, INTERNAL_PUBLIC_KEYS })).toThrow(/missing: INTERNAL_SIGNING_KEY$/);
  });

  it("takes a process's own key only: its key id names it, and its public half is published under that id", () => {
    const set = generateInternalKeySet('1');
    const orders = internalKeyEnv(set, 'orders');
    expect(internalKeysOf('orders', { NODE_ENV: 'production', ...orders }).signing.kid).toBe('orders:1');
    expect(() => internalKeysOf('catalog', { NODE_ENV: 'production', ...orders })).toThrow(/INTERNAL_SIGNING_KEY_ID must be "catalog:<version>"/);
    const catalog = internalKeyEnv(set, 'catalog');
    expect(() => internalKeysOf('orders', { NODE_ENV: 'production', ...orders, INTERNAL_SIGNING_KEY: catalog.INTERNAL_SIGNING_KEY })).toThrow(
      /lacks the public half of INTERNAL_SIGNING_KEY under orders:1/,
    );
  });

  it('refuses public keys whose id names no issuer, and a private key handed out as a public one', () => {
    const set = generateInternalKeySet('1', ['gateway']);
    const jwks = JSON.parse(set.publicKeys) as { keys: Array<Record<string, string>> };
    expect(() => parsePublicKeys(JSON.stringify({ keys: [{ ...jwks.keys[0], kid: 'stranger:1' }] }))).toThrow(/does not start with an issuer/);
    const privateJwk = JSON.parse(set.signing.gateway.key);
    expect(() => parsePublicKeys(JSON.stringify({ keys: [{ ...privateJwk, kid: 'gateway:1' }] }))).toThrow(/holds a private part/);
    expect(() => parsePublicKeys('not json')).toThrow(ConfigError);
  });

  it('rotates by key id: a receiver takes the old and the new key of an issuer while both are published', async () => {
    const before = generateInternalKeySet('2026-10', ['gateway']);
    const after = generateInternalKeySet('2026-11', ['gateway']);
    const both = JSON.stringify({ keys: [...JSON.parse(before.publicKeys).keys, ...JSON.parse(after.publicKeys).keys] });
    const signerWith = (set: typeof before) => internalKeysOf('gateway', { NODE_ENV: 'production', ...internalKeyEnv(set, 'gateway'), INTERNAL_PUBLIC_KEYS: both }).signing;
    const verify = createAssertionVerifier('orders', parsePublicKeys(both));
    expect(await verify(await signAssertion(user, signerWith(before), target), 'GET', '/api/orders')).toEqual(user);
    expect(await verify(await signAssertion(user, signerWith(after), target), 'GET', '/api/orders')).toEqual(user);
    const retired = createAssertionVerifier('orders', parsePublicKeys(after.publicKeys));
    expect(await retired(await signAssertion(user, signerWith(before), target), 'GET', '/api/orders')).toBeNull();
  });
});
