import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { allInternalRoutes, defineInternalRoute, routesOf, z, type InternalCaller } from '@market/contracts';
import { signAssertion, type Identity } from '../src/auth';
import { createServiceApp, internalRoute, route } from '../src/http';
import { createLogger } from '../src/logging';
import { assertionFor, testAssertionVerifier, testKeys } from '../src/testing';

const escrowOfOrder = defineInternalRoute({
  id: 'testEscrow',
  service: 'wallet',
  callers: ['orders', 'admin'],
  method: 'get',
  path: '/orders/escrow',
  response: z.object({ held: z.number().int() }),
});

const Caller = z.object({ sub: z.string() });
const testRoute = routesOf('wallet', { tags: ['test'] });
const whoAmI = testRoute('get /api/test/me', { id: 'testWhoAmI', auth: 'user',
  summary: 'the caller, for the test',
  success: { status: 200, description: 'the caller', schema: Caller }, errors: [401],
});
const publicRead = testRoute('get /api/test/public', { id: 'testPublicRead', auth: 'public', token: 'ignored',
  summary: 'a public read, for the test',
  success: { status: 200, description: 'the caller', schema: z.object({ kind: z.string() }) }, errors: [401],
});
const approveWithdrawal = testRoute('post /api/admin/test/approve', { id: 'testApprove', auth: 'admin', permission: 'withdrawals.manage',
  summary: 'an admin change, for the test',
  success: { status: 200, description: 'the caller', schema: Caller }, errors: [401, 403],
});
const ownAccount = testRoute('get /api/admin/test/me', { id: 'testOwnAccount', auth: 'admin', permission: 'own_account',
  summary: 'what every admin may do to their own account, for the test',
  success: { status: 200, description: 'the caller', schema: Caller }, errors: [401, 403],
});

/** The test key of `issuer`, as the holder of a breached process would have it. */
function stolenKey(issuer: InternalCaller) {
  const { key, kid } = testKeys().signing[issuer];
  return { issuer, kid, key: createPrivateKey({ key: JSON.parse(key), format: 'jwk' }) };
}

const user: Identity = { kind: 'user', sub: 'user-1', sid: 's', ip: null };
const admin = (perms: Extract<Identity, { kind: 'admin' }>['perms']): Identity => ({ kind: 'admin', sub: 'admin-1', sid: 's', ip: null, perms });

describe('who may call a service: issuer keys, internal callers, the request an assertion names, admin permissions', () => {
  let server: Server;
  let base: string;
  let approvals = 0;

  beforeAll(async () => {
    const app = createServiceApp({
      log: createLogger('test', 'silent'),
      verifyAssertion: testAssertionVerifier('wallet'),
      validateResponses: true,
      readiness: async () => ({ own: {} }),
      routes: [
        route(whoAmI, async ({ identity }) => ({ sub: identity.sub })),
        route(publicRead, async ({ identity }) => ({ kind: identity.kind })),
        route(approveWithdrawal, async ({ identity }) => {
          approvals += 1;
          return { sub: identity.sub };
        }),
        route(ownAccount, async ({ identity }) => ({ sub: identity.sub })),
      ],
      internal: [internalRoute(escrowOfOrder, async () => ({ held: 500 }))],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const send = async (method: string, path: string, assertion: string) => {
    const res = await fetch(base + path, { method, headers: { 'x-internal-assertion': assertion } });
    return { status: res.status, body: (await res.json()) as { code?: string } };
  };
  const get = (path: string, assertion: string) => send('GET', path, assertion);
  /** An assertion as the holder of `issuer`'s key can make it: any identity, for any request. */
  const signedBy = (issuer: InternalCaller, identity: Identity, method: string, path: string) =>
    signAssertion(identity, stolenKey(issuer), { audience: 'wallet', method, path });

  it('has every internal contract name its callers, never its own provider', () => {
    for (const contract of allInternalRoutes) {
      expect(contract.callers.length).toBeGreaterThan(0);
      expect(contract.callers).not.toContain(contract.service);
    }
  });

  it('answers the services the internal contract names', async () => {
    for (const caller of ['orders', 'admin'] as const) {
      const res = await get('/internal/orders/escrow', await assertionFor({ kind: 'service', sub: caller, ip: null }, { service: 'wallet', method: 'GET', path: '/internal/orders/escrow' }));
      expect(res).toEqual({ status: 200, body: { held: 500 } });
    }
  });

  it('refuses, with a 403 problem, a service the internal contract does not name, though it speaks with its own key', async () => {
    for (const caller of ['catalog', 'notify', 'gateway'] as const) {
      const res = await get('/internal/orders/escrow', await signedBy(caller, { kind: 'service', sub: caller, ip: null }, 'GET', '/internal/orders/escrow'));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });

  it('refuses a service assertion signed by anyone but that service itself, the gateway included', async () => {
    for (const issuer of ['catalog', 'gateway'] as const) {
      const res = await get('/internal/orders/escrow', await signedBy(issuer, { kind: 'service', sub: 'orders', ip: null }, 'GET', '/internal/orders/escrow'));
      expect(res.status).toBe(401);
    }
  });

  it("refuses a user, admin or anonymous identity signed with any service's key, on every kind of route", async () => {
    for (const issuer of ['catalog', 'orders', 'admin', 'wallet', 'identity', 'files', 'notify'] as const) {
      expect((await get('/api/test/me', await signedBy(issuer, user, 'GET', '/api/test/me'))).status).toBe(401);
      expect((await get('/api/test/public', await signedBy(issuer, { kind: 'anonymous', ip: null }, 'GET', '/api/test/public'))).status).toBe(401);
      const superAdmin = admin(['withdrawals.manage']);
      const forged = await send('POST', '/api/admin/test/approve', await signedBy(issuer, superAdmin, 'POST', '/api/admin/test/approve'));
      expect(forged).toEqual({ status: 401, body: expect.objectContaining({ code: 'UNAUTHENTICATED' }) });
    }
    expect((await get('/api/test/me', await signedBy('gateway', user, 'GET', '/api/test/me'))).status).toBe(200);
  });

  it('takes a service identity on its internal routes only, never on a public one', async () => {
    const res = await get('/api/test/public', await signedBy('orders', { kind: 'service', sub: 'orders', ip: null }, 'GET', '/api/test/public'));
    expect(res.status).toBe(401);
  });

  it('refuses an assertion replayed on another path, another method or another service', async () => {
    const forMe = await signedBy('gateway', user, 'GET', '/api/test/me');
    expect((await get('/api/test/me', forMe)).status).toBe(200);
    expect((await get('/api/test/public', forMe)).status).toBe(401);
    expect((await send('POST', '/api/test/me', forMe)).status).toBe(401);
    const escrow = await assertionFor({ kind: 'service', sub: 'orders', ip: null }, { service: 'wallet', method: 'GET', path: '/internal/orders/escrow' });
    expect((await get('/internal/orders/escrow?again=1', escrow)).status).toBe(200);
    expect((await get('/internal/orders/escrow/', escrow)).status).toBe(401);
    const forOrders = await assertionFor({ kind: 'service', sub: 'admin', ip: null }, { service: 'orders', method: 'GET', path: '/internal/orders/escrow' });
    expect((await get('/internal/orders/escrow', forOrders)).status).toBe(401);
  });

  it('refuses an assertion after its life, and one made to live longer than an assertion does', async () => {
    const { key, kid } = stolenKey('gateway');
    const claims = { id: user, htm: 'GET', htu: '/api/test/me' };
    const sign = (issuedAt: number, expiresAt: number) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid }).setIssuer('gateway').setAudience('wallet').setIssuedAt(issuedAt).setExpirationTime(expiresAt).sign(key);
    const now = Math.floor(Date.now() / 1000);
    expect((await get('/api/test/me', await sign(now, now + 30))).status).toBe(200);
    expect((await get('/api/test/me', await sign(now - 60, now - 30))).status).toBe(401);
    expect((await get('/api/test/me', await sign(now, now + 3600))).status).toBe(401);
    expect((await get('/api/test/me', await sign(now - 3000, now + 30))).status).toBe(401);
  });

  it('refuses, with a 403 problem, an admin assertion without the permission the route names, and nothing runs', async () => {
    const path = '/api/admin/test/approve';
    const reviewer = await signedBy('gateway', admin(['listings.read', 'listings.review']), 'POST', path);
    const before = approvals;
    const refused = await send('POST', path, reviewer);
    expect(refused).toEqual({ status: 403, body: expect.objectContaining({ code: 'FORBIDDEN' }) });
    expect(approvals).toBe(before);
    const finance = await signedBy('gateway', admin(['withdrawals.read', 'withdrawals.manage']), 'POST', path);
    expect(await send('POST', path, finance)).toEqual({ status: 200, body: { sub: 'admin-1' } });
    // what every admin does to their own account needs no permission
    expect((await get('/api/admin/test/me', await signedBy('gateway', admin([]), 'GET', '/api/admin/test/me'))).status).toBe(200);
  });

  it('refuses a tampered assertion, one signed by an unknown key or under an unknown kid, and one without a signature', async () => {
    const good = await signedBy('gateway', user, 'GET', '/api/test/me');
    const [header, payload, signature] = good.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const tampered = Buffer.from(JSON.stringify({ ...claims, id: { ...claims.id, sub: 'victim' } })).toString('base64url');
    expect((await get('/api/test/me', `${header}.${tampered}.${signature}`)).status).toBe(401);
    // a bit of the signature's first byte flipped (an edit of its last characters may only touch base64's padding bits)
    const bytes = Buffer.from(signature!, 'base64url');
    bytes[0] ^= 1;
    const flipped = `${header}.${payload}.${bytes.toString('base64url')}`;
    expect((await get('/api/test/me', flipped)).status).toBe(401);

    const outsider = generateKeyPairSync('ed25519').privateKey;
    const ownKid = stolenKey('gateway').kid;
    for (const kid of [ownKid, 'gateway:unknown', 'nobody:1']) {
      expect((await get('/api/test/me', await signAssertion(user, { issuer: 'gateway', kid, key: outsider }, { audience: 'wallet', method: 'GET', path: '/api/test/me' }))).status).toBe(401);
    }
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', kid: ownKid })).toString('base64url')}.${payload}.`;
    expect((await get('/api/test/me', unsigned)).status).toBe(401);
    // a catalog key under the gateway's key id still verifies only as catalog's: the kid names the signer
    const catalog = stolenKey('catalog');
    const underGatewayKid = await signAssertion(user, { ...catalog, kid: ownKid }, { audience: 'wallet', method: 'GET', path: '/api/test/me' });
    expect((await get('/api/test/me', underGatewayKid)).status).toBe(401);
  });
});
