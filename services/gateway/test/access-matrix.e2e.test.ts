import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import { ADMIN_ROLES, allRoutes, DEFAULT_PORTS, ownerOf, permissionsOf, rolesAllow, type AdminRole, type AnyRoute } from '@market/contracts';
import { ASSERTION_HEADER, type Identity } from '@market/shared/auth';
import { internalKeysFor, testAssertionVerifier } from '@market/shared/testing';
import { createLogger } from '@market/shared/logging';
import { api, mintToken, newAdmin, startStack, type Stack } from '@market/testkit';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { gatewayOpenApiDocument } from '../src/openapi';

/**
 * The access matrix, generated from the route contracts: every operation × every kind of caller,
 * the expected verdict derived from the contract's `auth`, token policy and `permission`, compared
 * with what the gateway does. A new route is in it by being in `allRoutes`; an admin route without
 * a permission fails the type check, and here too.
 *
 * The gateway under test forwards to a recorder instead of the services, so "allowed" is exact:
 * the request reached the upstream, with the identity the recorder read from the signed assertion.
 * Admin callers are real admins with real sessions (the admin service of the stack made them).
 * Parties and strangers are told apart by the services, not the gateway: the second part runs
 * the routes of one user's resources against the real services.
 */

type Caller =
  | { label: string; kind: 'anonymous' }
  | { label: string; kind: 'user'; token: string }
  | { label: string; kind: 'admin'; token: string; roles: AdminRole[] }
  | { label: string; kind: 'foreign'; token: string };

type Verdict = { allowed: true; as: Identity['kind'] } | { allowed: false; status: 401 | 403 };

function expected(route: AnyRoute, caller: Caller): Verdict {
  if (route.auth === 'public') {
    if (route.token !== 'optional' || caller.kind === 'anonymous') return { allowed: true, as: 'anonymous' };
    return caller.kind === 'user' ? { allowed: true, as: 'user' } : { allowed: false, status: 401 };
  }
  if (route.auth === 'user') return caller.kind === 'user' ? { allowed: true, as: 'user' } : { allowed: false, status: 401 };
  if (caller.kind !== 'admin') return { allowed: false, status: 401 };
  return rolesAllow(caller.roles, route.permission!) ? { allowed: true, as: 'admin' } : { allowed: false, status: 403 };
}

const SOME_ID = '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';
const concrete = (route: AnyRoute, id = SOME_ID) => route.path.replace(/\{[^}]+\}/g, id);

describe('access matrix', () => {
  let stack: Stack;
  let recorder: Server;
  let gateway: Server;
  let edge: ReturnType<typeof api>;
  const reached: Array<{ path: string; identity: Identity | null }> = [];
  const callers: Caller[] = [];

  beforeAll(async () => {
    stack = await startStack({
      services: ['identity', 'catalog', 'orders', 'wallet', 'admin'],
      serviceEnv: { identity: { SMS_DAILY_LIMIT_PER_IP: '100000' } },
    });
    recorder = createServer(async (req: IncomingMessage, res) => {
      req.resume();
      // read as the service that owns the path reads it: made for it, this method and this path
      const path = (req.url ?? '').split('?')[0]!;
      const identity = await testAssertionVerifier(ownerOf(path)!)(req.headers[ASSERTION_HEADER] as string | undefined, req.method ?? '', path);
      reached.push({ path, identity });
      res.writeHead(200, { 'content-type': 'application/json', 'x-matrix-reached': '1' }).end('{}');
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    const upstream = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
    // The same Redis prefix as the stack: the admin sessions and roles the stack's admin service wrote.
    const urls = Object.fromEntries(Object.keys(DEFAULT_PORTS).map((name) => [`${name.toUpperCase()}_URL`, upstream]));
    const config = loadGatewayConfig({ ...stack.env, ...internalKeysFor('gateway'), ...urls, PORT: '0' });
    gateway = createServer(createGateway(config, stack.redis, createLogger('gateway', 'silent')));
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    edge = api(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`);

    callers.push({ label: 'anonymous', kind: 'anonymous' });
    callers.push({ label: 'user', kind: 'user', token: mintToken('user') });
    callers.push({ label: 'admin token without a session', kind: 'foreign', token: mintToken('admin') });
    callers.push({ label: 'admin with no role', kind: 'admin', token: (await newAdmin(stack, [])).token, roles: [] });
    for (const role of ADMIN_ROLES) callers.push({ label: role, kind: 'admin', token: (await newAdmin(stack, [role])).token, roles: [role] });
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => gateway?.close(resolve));
    await new Promise((resolve) => recorder?.close(resolve));
    await stack?.stop();
  });

  it('every admin route declares a known permission, and the OpenAPI document shows it', () => {
    const document = gatewayOpenApiDocument() as unknown as { paths: Record<string, Record<string, { 'x-permission'?: string; description?: string }>> };
    for (const route of allRoutes.filter((r) => r.auth === 'admin')) {
      expect({ id: route.id, permission: route.permission }).toEqual({ id: route.id, permission: expect.any(String) });
      const operation = document.paths[route.path]![route.method]!;
      expect(operation['x-permission']).toBe(route.permission);
      expect(operation.description).toContain('Permission:');
    }
    for (const route of allRoutes.filter((r) => r.auth !== 'admin')) expect(route.permission).toBeUndefined();
  });

  it('every operation answers every caller as its contract says', async () => {
    const mismatches: string[] = [];
    let cells = 0;
    for (const route of allRoutes) {
      const path = concrete(route);
      for (const caller of callers) {
        cells += 1;
        const want = expected(route, caller);
        const before = reached.length;
        const headers: Record<string, string> = caller.kind === 'anonymous' ? {} : { authorization: `Bearer ${caller.token}` };
        const body = route.method === 'get' || route.method === 'delete' ? undefined : '{}';
        const res = await edge.raw(route.method.toUpperCase(), path, {
          headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
          body,
        });
        await res.text();
        const hit = reached.length > before ? reached[reached.length - 1] : undefined;
        const got = hit ? `allowed as ${hit.identity?.kind}` : `refused ${res.status}`;
        const wanted = want.allowed ? `allowed as ${want.as}` : `refused ${want.status}`;
        if (got !== wanted) mismatches.push(`${route.method.toUpperCase()} ${route.path} as ${caller.label}: wanted ${wanted}, got ${got}`);
        if (hit && hit.path !== path) mismatches.push(`${route.method.toUpperCase()} ${route.path} as ${caller.label}: reached ${hit.path}`);
        if (hit?.identity?.kind === 'admin' && caller.kind === 'admin' && hit.identity.perms.join() !== permissionsOf(caller.roles).join()) {
          mismatches.push(`${route.method.toUpperCase()} ${route.path} as ${caller.label}: asserted the permissions ${hit.identity.perms.join()}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(cells).toBe(allRoutes.length * callers.length);
  }, 120_000);

  describe('parties and strangers, on the real services', () => {
    let client: ReturnType<typeof api>;
    let owner: string;
    let renter: string;
    let stranger: string;
    /** the id a route of a user's own resource is called with, by path prefix, and who is party to it */
    const owned: Array<{ prefix: string; id: string; party: () => string }> = [];

    const logIn = async () => {
      const phone = `136${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
      const sent = await client.post('/api/auth/sms/send', { phone });
      const login = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
      expect(login.status).toBe(200);
      return login.body.access_token as string;
    };

    beforeAll(async () => {
      client = api(stack.url);
      [owner, renter, stranger] = [await logIn(), await logIn(), await logIn()];
      const reviewer = (await newAdmin(stack, ['reviewer'])).token;
      const listingBody = { title: 'matrix', game: 'matrix', hourly_price: 500, deposit: 1000, min_hours: 1, max_hours: 24 };
      const draft = await client.post('/api/listings', listingBody, owner);
      const online = await client.post('/api/listings', listingBody, owner);
      expect((await client.post(`/api/listings/${online.body.id}/submit-review`, {}, owner)).status).toBe(200);
      expect((await client.post(`/api/admin/listings/${online.body.id}/approve`, {}, reviewer)).status).toBe(200);
      const order = await client.post('/api/orders', { listing_id: online.body.id, hours: 1 }, renter);
      expect(order.status).toBe(201);
      const recharge = await client.post('/api/wallet/recharge/pay', { amount: 1000, channel: 'alipay' }, renter);
      expect(recharge.status).toBe(201);
      owned.push(
        { prefix: '/api/listings/{id}', id: draft.body.id, party: () => owner },
        { prefix: '/api/seller/listings/{id}', id: draft.body.id, party: () => owner },
        { prefix: '/api/orders/{id}', id: order.body.id, party: () => renter },
        { prefix: '/api/wallet/recharge/pay/{id}', id: recharge.body.id, party: () => renter },
      );
    }, 60_000);

    it('a stranger never reaches another user’s listing, order or recharge; the party does', async () => {
      const mismatches: string[] = [];
      let checked = 0;
      for (const route of allRoutes.filter((r) => r.auth === 'user')) {
        const resource = owned.find((o) => route.path.startsWith(o.prefix));
        if (!resource) continue;
        checked += 1;
        const path = concrete(route, resource.id);
        const call = (token: string) =>
          route.method === 'get'
            ? client.get(path, token)
            : route.method === 'delete'
              ? client.delete(path, token)
              : route.method === 'put'
                ? client.put(path, {}, token)
                : client.post(path, {}, token);
        const asStranger = await call(stranger);
        // Input refused before anything is looked up tells a stranger nothing either.
        if (asStranger.status !== 404 && asStranger.status !== 400) mismatches.push(`${route.method} ${route.path} as stranger: ${asStranger.status}`);
        if (route.method === 'delete') continue; // the party's delete would remove the resource the rest needs
        const asParty = await call(resource.party());
        if (asParty.status === 404 || asParty.status >= 500) mismatches.push(`${route.method} ${route.path} as party: ${asParty.status}`);
      }
      expect(mismatches).toEqual([]);
      expect(checked).toBeGreaterThanOrEqual(15);
    }, 60_000);
  });
});
