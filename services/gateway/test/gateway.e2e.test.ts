import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@market/shared/logging';
import { connectRedis } from '@market/shared/redis';
import { signAssertion } from '@market/shared/auth';
import { assertionFor, internalKeysFor, testKeys } from '@market/shared/testing';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { api, mintToken, newAdmin, startStack, type Stack } from '@market/testkit';

const endpoints: Array<{ method: string; path: string }> = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../docs/api/specified-endpoints.json'), 'utf8'),
);

const userToken = (sub?: string, sid?: string) => mintToken('user', sub, sid);
/** An admin token of no session: refused wherever it goes. */
const adminToken = () => mintToken('admin');

describe('gateway in front of running services', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    // identity too: only it may write users' revocations and blocks (its Redis user, ADR 0054)
    stack = await startStack({ services: ['identity', 'orders', 'wallet', 'notify', 'admin'] });
    client = api(stack.url);
  });
  afterAll(() => stack.stop());

  it('answers /healthz and tags every response with a request id, keeping a valid client one', async () => {
    const health = await client.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await client.get('/healthz', undefined, { 'x-request-id': 'client-req-12345' });
    expect(echoed.headers.get('x-request-id')).toBe('client-req-12345');
    const replaced = await client.get('/healthz', undefined, { 'x-request-id': 'bad id with spaces' });
    expect(replaced.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('serves one OpenAPI 3.1 document listing every endpoint of the spec, and a docs page', async () => {
    const { status, body } = await client.get('/api/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    const norm = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
    const have = new Set<string>();
    for (const [p, ops] of Object.entries(body.paths as Record<string, object>)) {
      for (const m of Object.keys(ops)) have.add(`${m.toUpperCase()} ${norm(p)}`);
    }
    const missing = endpoints.filter((e) => !have.has(`${e.method} ${norm(e.path)}`));
    expect(missing).toEqual([]);
    expect(endpoints).toHaveLength(68);
    expect(body.components.schemas.OpenUploadAccount).toBeDefined();
    const { validate } = await import('@readme/openapi-parser');
    expect(await validate(body)).toMatchObject({ valid: true, warnings: [] });
    const docs = await client.raw('GET', '/api/docs/');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
  });

  it('answers unknown routes, and anything under /internal, with a 404 problem', async () => {
    for (const p of ['/api/nope', '/internal/anything', '/api/listings/x/../../internal/y', '/']) {
      const res = await client.get(p);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe('NOT_FOUND');
    }
    const wrongMethod = await client.put('/api/orders', {});
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('POST');
  });

  it('requires a user token on user routes and refuses malformed or foreign tokens', async () => {
    const none = await client.get('/api/orders');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHENTICATED');
    const garbage = await client.get('/api/orders', 'not-a-jwt');
    expect(garbage.status).toBe(401);
    const basic = await client.get('/api/orders', undefined, { authorization: 'Basic abc' });
    expect(basic.status).toBe(401);
    const admin = await client.get('/api/orders', adminToken());
    expect(admin.status).toBe(401);
    const expired = mintToken('user', 'u-1', 's-1', -10);
    const late = await client.get('/api/orders', expired);
    expect(late.status).toBe(401);
    expect(late.body.code).toBe('TOKEN_EXPIRED');
  });

  it('refuses a user token on admin routes', async () => {
    const res = await client.get('/api/admin/orders', userToken());
    expect(res.status).toBe(401);
    const ok = await client.get('/api/admin/orders', (await newAdmin(stack, ['customer_service'])).token);
    expect(ok.status).toBe(200);
  });

  it('forwards a verified caller to the service, whose problems carry the gateway’s request id', async () => {
    const res = await client.get('/api/orders/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', userToken());
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('sees revocation and blocking on the very next request', async () => {
    const token = userToken('u-revoke', 'sid-revoke');
    expect((await client.get('/api/disputes', token)).status).toBe(200);
    await stack.services.identity!.ctx.revocations.revokeSession('user', 'sid-revoke', 600);
    const revoked = await client.get('/api/disputes', token);
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('TOKEN_REVOKED');

    const frozenToken = userToken('u-frozen', 'sid-frozen');
    await stack.services.identity!.ctx.revocations.blockSubject('user', 'u-frozen');
    const frozen = await client.get('/api/disputes', frozenToken);
    expect(frozen.status).toBe(403);
    expect(frozen.body.code).toBe('USER_FROZEN');
    await stack.services.identity!.ctx.revocations.unblockSubject('user', 'u-frozen');
    expect((await client.get('/api/disputes', frozenToken)).status).toBe(200);
  });

  it('strips identity headers a client sends, so a forged assertion gets nobody in', async () => {
    // signed with the gateway's own key for this very request: the gateway strips it all the same
    const forged = await assertionFor({ kind: 'user', sub: 'victim', sid: 's', ip: null }, { service: 'orders', method: 'GET', path: '/api/orders' });
    const res = await client.get('/api/orders', undefined, { 'x-internal-assertion': forged, 'x-user-id': 'victim' });
    expect(res.status).toBe(401);
  });

  it('a service reached directly refuses requests without a valid gateway assertion', async () => {
    const direct = api(stack.services.orders!.url);
    const none = await direct.get('/api/orders', undefined, { 'x-user-id': 'victim' });
    expect(none.status).toBe(401);
    const wrongKey = await signAssertion(
      { kind: 'user', sub: 'victim', sid: 's', ip: null },
      // another key under the gateway's key id
      { issuer: 'gateway', kid: testKeys().signing.gateway.kid, key: generateKeyPairSync('ed25519').privateKey },
      { audience: 'orders', method: 'GET', path: '/api/orders' },
    );
    const forged = await direct.get('/api/orders', undefined, { 'x-internal-assertion': wrongKey });
    expect(forged.status).toBe(401);
    const internal = await direct.get('/internal/x', undefined, {
      'x-internal-assertion': await assertionFor({ kind: 'user', sub: 'u', sid: 's', ip: null }, { service: 'orders', method: 'GET', path: '/internal/x' }),
    });
    expect(internal.status).toBe(404);
  });

  it('turns malformed JSON, unknown fields and oversized bodies into problems', async () => {
    const malformed = await client.post('/api/orders', '{"listing_id": ', userToken());
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('MALFORMED_JSON');
    const unknown = await client.post('/api/orders', { listing_id: 'x', hours: 1, extra: true }, userToken());
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('VALIDATION_FAILED');
    expect(unknown.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ message: expect.stringContaining('extra') })]));
    const wrongType = await client.post('/api/orders', { listing_id: 'x', hours: 'many' }, userToken());
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors[0].path).toBe('hours');
    const big = await client.post('/api/orders', { listing_id: 'x'.repeat(200 * 1024), hours: 1 }, userToken());
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
    const badLimit = await client.get('/api/orders?limit=1000', userToken());
    expect(badLimit.status).toBe(400);
  });

  it('answers 503 UPSTREAM_UNAVAILABLE as problem+json when a service is down', async () => {
    const res = await client.get('/api/listings');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
  });

  it('stays ready while a service is down; the system view on the metrics port names it', async () => {
    const res = await client.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ redis: true });
    const system = await fetch(`${stack.gatewayMetricsUrl}/system/readyz`);
    expect(system.status).toBe(503);
    expect(await system.json()).toMatchObject({ status: 'not_ready', checks: { redis: true, orders: true, catalog: false } });
  });
});

describe('gateway rate limiting', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['notify'], env: { RATE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(() => stack.stop());

  it('answers 429 RATE_LIMITED with Retry-After once a client exceeds its budget', async () => {
    const client = api(stack.url);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await client.get('/api/notifications', userToken());
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    expect(last!.body.code).toBe('RATE_LIMITED');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('rate limits on abuse-prone routes', () => {
  let stack: Stack;
  let second: Server;
  let secondUrl: string;
  let closeRedis: () => Promise<unknown>;

  beforeAll(async () => {
    stack = await startStack({ services: ['notify'], env: { RATE_LIMIT_SMS_PER_MINUTE: '3' } });
    const log = createLogger('gateway', 'silent');
    const redis = await connectRedis(String(stack.env.REDIS_URL), log);
    closeRedis = () => redis.quit();
    second = createServer(createGateway(loadGatewayConfig({ ...stack.env, ...internalKeysFor('gateway'), PORT: '0' }), redis, log));
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
    secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => second.close(resolve));
    await closeRedis();
    await stack.stop();
  });

  it('are counted in Redis, so two gateway replicas share one budget per address', async () => {
    const send = (base: string) => api(base).post('/api/auth/sms/send', { phone: '13800138000' });
    const statuses = [
      (await send(stack.url)).status,
      (await send(secondUrl)).status,
      (await send(stack.url)).status,
    ];
    // identity is not running: requests inside the budget reach the proxy and find it down
    expect(statuses).toEqual([503, 503, 503]);
    const refused = await send(secondUrl);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
