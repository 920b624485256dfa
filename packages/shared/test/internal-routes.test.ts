import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allInternalRoutes, defineInternalRoute, defineRoute, z } from '@market/contracts';
import { createAssertionVerifier, signAssertion, type AssertionIssuer, type Identity } from '../src/auth';
import { createServiceApp, internalRoute, route } from '../src/http';
import { createLogger } from '../src/logging';
import { assertionFor } from '../src/testing';

const SECRET = 'dev-only-internal-assertion-secret-0000000000';

const escrowOfOrder = defineInternalRoute({
  id: 'testEscrow',
  service: 'wallet',
  callers: ['orders', 'admin'],
  method: 'get',
  path: '/orders/escrow',
  response: z.object({ held: z.number().int() }),
});

const whoAmI = defineRoute({
  id: 'testWhoAmI',
  service: 'wallet',
  method: 'get',
  path: '/api/test/me',
  auth: 'user',
  summary: 'the caller, for the test',
  tags: ['test'],
  success: { status: 200, description: 'the caller', schema: z.object({ sub: z.string() }) },
  errors: [401],
});

describe('who may call a service: the assertion issuer and internal callers', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = createServiceApp({
      log: createLogger('test', 'silent'),
      verifyAssertion: createAssertionVerifier(SECRET),
      validateResponses: true,
      readiness: async () => ({}),
      routes: [route(whoAmI, async ({ identity }) => ({ sub: identity.sub }))],
      internal: [internalRoute(escrowOfOrder, async () => ({ held: 500 }))],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const get = (path: string, assertion: string) => fetch(base + path, { headers: { 'x-internal-assertion': assertion } });
  const signedBy = (issuer: AssertionIssuer, identity: Identity) => signAssertion(identity, SECRET, issuer);

  it('has every internal contract name its callers, never its own provider', () => {
    for (const contract of allInternalRoutes) {
      expect(contract.callers.length).toBeGreaterThan(0);
      expect(contract.callers).not.toContain(contract.service);
    }
  });

  it('answers the services the internal contract names', async () => {
    for (const caller of ['orders', 'admin'] as const) {
      const res = await get('/internal/orders/escrow', assertionFor({ kind: 'service', sub: caller, ip: null }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ held: 500 });
    }
  });

  it('refuses a service the internal contract does not name with 403 FORBIDDEN', async () => {
    for (const caller of ['catalog', 'wallet'] as const) {
      const res = await get('/internal/orders/escrow', assertionFor({ kind: 'service', sub: caller, ip: null }));
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'FORBIDDEN' });
    }
  });

  it('refuses a service assertion issued by anyone but that service itself', async () => {
    const ordersByCatalog = await get('/internal/orders/escrow', signedBy('catalog', { kind: 'service', sub: 'orders', ip: null }));
    expect(ordersByCatalog.status).toBe(401);
    const ordersByGateway = await get('/internal/orders/escrow', signedBy('gateway', { kind: 'service', sub: 'orders', ip: null }));
    expect(ordersByGateway.status).toBe(401);
  });

  it('accepts user identities only from the gateway', async () => {
    const user: Identity = { kind: 'user', sub: 'user-1', sid: 's', ip: null };
    expect((await get('/api/test/me', signedBy('gateway', user))).status).toBe(200);
    const fromService = await get('/api/test/me', signedBy('catalog', user));
    expect(fromService.status).toBe(401);
    expect(await fromService.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
