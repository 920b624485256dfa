import { randomUUID } from 'node:crypto';
import {
  ADMIN_PERMISSIONS,
  allInternalRoutes,
  allRoutes,
  INTERNAL_CALLERS,
  permissionsOf,
  SERVICE_NAMES,
  type AdminPermission,
  type AnyRoute,
  type InternalCaller,
  type ServiceName,
} from '@market/contracts';
import { signAssertion, type Identity } from '@market/shared/auth';
import { assertionFor, testSigningKey } from '@market/shared/testing';
import { internalClientAs, newAdmin, startStack, type Stack } from '@market/testkit';

/** A breached process's key: it signs whatever identity, for whatever request, with it. */
const keyOf = (issuer: InternalCaller) => testSigningKey(issuer);

const concrete = (path: string) => path.replace(/\{\w+\}/g, () => randomUUID());
const admin = (perms: readonly AdminPermission[]): Identity => ({ kind: 'admin', sub: randomUUID(), sid: randomUUID(), ip: '10.0.0.9', perms: [...perms] });
const user: Identity = { kind: 'user', sub: randomUUID(), sid: randomUUID(), ip: '10.0.0.9' };
const identityFor = (route: AnyRoute): Identity =>
  route.auth === 'admin' ? admin(ADMIN_PERMISSIONS) : route.auth === 'user' ? user : { kind: 'anonymous', ip: '10.0.0.9' };

/** One route of each kind a service has (a read where there is one; no stream, which never ends). */
function sampleRoutes(service: ServiceName): AnyRoute[] {
  const own = allRoutes.filter((route) => route.service === service && !route.stream);
  return (['public', 'user', 'admin'] as const).flatMap((auth) => {
    const ofKind = own.filter((route) => route.auth === auth);
    const pick = ofKind.find((route) => route.method === 'get') ?? ofKind[0];
    return pick ? [pick] : [];
  });
}

/**
 * Every service of a running stack, reached directly as a breached neighbour would reach it
 * (ADR 0053): with its own key and with another service's, but never the gateway's.
 */
describe('internal identity against a breached process', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: [...SERVICE_NAMES] });
  }, 180_000);
  afterAll(() => stack?.stop());

  /** The kit's refusal of an assertion, before any route runs (a route may answer 401 of its own: a session unknown). */
  const refusedAtTheDoor = (res: { status: number; body?: { code?: string; detail?: string } }) =>
    res.status === 401 && res.body?.code === 'UNAUTHENTICATED' && res.body.detail === 'requests must come through the gateway';

  async function send(service: ServiceName, method: string, path: string, assertion: string, body?: unknown) {
    const res = await fetch(stack.services[service]!.url + path, {
      method,
      headers: { 'x-internal-assertion': assertion, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  it("refuses, at every service, a user, admin or anonymous identity signed with a service's key", async () => {
    const accepted: string[] = [];
    for (const service of SERVICE_NAMES) {
      const neighbour = SERVICE_NAMES.find((other) => other !== service)!;
      for (const route of sampleRoutes(service)) {
        const method = route.method.toUpperCase();
        const path = concrete(route.path);
        const body = method === 'GET' || method === 'DELETE' ? undefined : {};
        for (const issuer of [service, neighbour] as const) {
          const forged = await signAssertion(identityFor(route), keyOf(issuer), { audience: service, method, path });
          const res = await send(service, method, path, forged, body);
          if (!refusedAtTheDoor(res)) accepted.push(`${route.id} signed by ${issuer}: ${res.status}`);
        }
        // the same request as the gateway signs it gets past the assertion: the refusals above are the key's
        const real = await send(service, method, path, await assertionFor(identityFor(route), { service, method, path }), body);
        if (refusedAtTheDoor(real)) accepted.push(`${route.id} refused the gateway's own assertion`);
      }
    }
    expect(accepted).toEqual([]);
  }, 120_000);

  it('refuses, with a 403 problem, a service calling an internal route its contract does not give it', async () => {
    const opened: string[] = [];
    for (const contract of allInternalRoutes) {
      const stranger = INTERNAL_CALLERS.find((caller) => caller !== contract.service && !contract.callers.includes(caller))!;
      const params = Object.fromEntries([...contract.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, randomUUID()]));
      const refusal = await internalClientAs(stack, stranger as ServiceName)
        .call(contract, { params })
        .then(
          () => null,
          (err: { status?: number; code?: string }) => err,
        );
      if (refusal?.status !== 403 || refusal.code !== 'FORBIDDEN') opened.push(`${contract.id} as ${stranger}: ${JSON.stringify(refusal)}`);
    }
    expect(opened).toEqual([]);
  });

  it('refuses an assertion replayed on another path, another method or another service, or after its life', async () => {
    const me = await assertionFor(user, { service: 'identity', method: 'GET', path: '/api/me' });
    expect(refusedAtTheDoor(await send('identity', 'GET', '/api/me', me))).toBe(false);
    expect(refusedAtTheDoor(await send('identity', 'GET', '/api/realname', me))).toBe(true);
    expect(refusedAtTheDoor(await send('identity', 'POST', '/api/me', me, {}))).toBe(true);
    expect(refusedAtTheDoor(await send('notify', 'GET', '/api/me', me))).toBe(true);

    const expired = await assertionFor(user, { service: 'identity', method: 'GET', path: '/api/me' }, Math.floor(Date.now() / 1000) - 40);
    expect(refusedAtTheDoor(await send('identity', 'GET', '/api/me', expired))).toBe(true);
  });

  it('refuses an admin assertion without the permission the route names, at the admin service and at orders', async () => {
    const reviewer = await newAdmin(stack, ['reviewer']);
    const asReviewer: Identity = { kind: 'admin', sub: reviewer.id, sid: reviewer.sid, ip: '10.0.0.9', perms: permissionsOf(['reviewer']) };
    const username = `t_${randomUUID().slice(-12)}`;
    const newcomer = { username, nickname: username, password: 'a-long-initial-password', roles: ['super_admin'] };
    const create = (identity: Identity) =>
      assertionFor(identity, { service: 'admin', method: 'POST', path: '/api/admin/admins' }).then((assertion) =>
        send('admin', 'POST', '/api/admin/admins', assertion, newcomer),
      );

    expect(await create(asReviewer)).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    const [{ n }] = await stack.services.admin!.ctx.db.query(`SELECT count(*)::int AS n FROM admin_users WHERE username = $1`, [username]);
    expect(n).toBe(0);
    // the same admin, had the gateway resolved roles that grant it
    expect((await create({ ...asReviewer, perms: ['admins.manage'] })).status).toBe(201);

    const reveal = `/api/admin/orders/${randomUUID()}/handoff-records/reveal`;
    const revealAs = async (identity: Identity) =>
      send('orders', 'POST', reveal, await assertionFor(identity, { service: 'orders', method: 'POST', path: reveal }), { reason: 'checking a dispute' });
    expect(await revealAs(asReviewer)).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect((await revealAs({ ...asReviewer, perms: ['handoffs.reveal'] })).status).toBe(404);
  });
});
