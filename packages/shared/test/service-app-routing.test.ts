import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { defineRoute, z, type AnyRoute } from '@market/contracts';
import type { Identity } from '../src/auth';
import { createServiceApp, PreparedJson, route } from '../src/http';
import { accessLogger, createLogger } from '../src/logging';
import { assertionFor, testAssertionVerifier } from '../src/testing';

const Thing = z.object({ id: z.string(), n: z.number(), tags: z.array(z.string()) });
const get = (id: string, p: string, extra: Partial<AnyRoute> = {}) =>
  defineRoute({
    id,
    service: 'catalog',
    method: 'get',
    path: p,
    auth: 'public',
    token: 'ignored',
    summary: id,
    tags: ['test'],
    success: { status: 200, description: 'ok', schema: Thing },
    errors: [400, 404],
    ...extra,
  } as never) as AnyRoute;

const things = get('testThings', '/api/test/things', {
  query: z.object({ n: z.coerce.number().int().min(0).default(1), tag: z.array(z.string()).or(z.string()).optional() }).strict(),
});
// bound before the literal route below, which still takes `/api/test/things/latest`
const thing = get('testThing', '/api/test/things/{id}', { params: z.object({ id: z.string().max(20) }) });
const latest = get('testLatestThing', '/api/test/things/latest');
const shared = get('testSharedThing', '/api/test/shared');
const bytes = get('testThingBytes', '/api/test/bytes', { success: { status: 200, description: 'bytes', contentType: 'text/plain' } });
const create = defineRoute({
  id: 'testCreateThing',
  service: 'catalog',
  method: 'post',
  path: '/api/test/things',
  auth: 'user',
  summary: 'create',
  tags: ['test'],
  body: z.object({ n: z.number().int() }).strict(),
  success: { status: 201, description: 'made', schema: Thing },
  errors: [400, 401],
}) as AnyRoute;

describe('a service app answers its contract routes through one pipeline', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'service-app-'));
  const logFile = path.join(dir, 'service.log');
  let server: Server;
  let base: string;
  const queriesSeen: unknown[] = [];
  const prepared = new PreparedJson({ id: 'shared', n: 1, tags: ['缓存'] });

  beforeAll(async () => {
    const app = createServiceApp({
      log: createLogger('catalog', 'info', logFile),
      verifyAssertion: testAssertionVerifier('catalog'),
      validateResponses: true,
      readiness: async () => ({ own: {} }),
      routes: [
        route(things, async ({ query }) => {
          queriesSeen.push(query);
          const { n, tag } = query as { n: number; tag?: string | string[] };
          return { id: 'list', n, tags: tag === undefined ? [] : [tag].flat() };
        }),
        route(thing, async ({ params, log }) => {
          const { id } = params as { id: string };
          if (id === 'loud') log.info('handler speaking');
          return { id, n: 0, tags: [] };
        }),
        route(latest, async () => ({ id: 'the latest route', n: 99, tags: [] })),
        route(shared, async () => prepared),
        // a handler writing its own answer, as a file read does: \`req.fresh\` is the pipeline's rule
        route(bytes, async ({ req, res }) => {
          res.setHeader('ETag', '"bytes-v1"');
          if (req.fresh) {
            res.status(304).end();
            return;
          }
          res.status(200).type('text/plain').end('the bytes');
        }),
        route(create, async ({ body, identity }) => ({ id: identity.kind, n: (body as { n: number }).n, tags: [] })),
      ],
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  // An assertion is made for one method and path: these stand for the caller, and `call` signs
  // for the request it sends (for the path the service routes by: before any `?` or `#`).
  const callers: Record<string, Identity> = {
    'as anonymous': { kind: 'anonymous', ip: null },
    'as user': { kind: 'user', sub: 'u1', sid: 's1', ip: null },
  };
  const anonymous = { 'x-internal-assertion': 'as anonymous' };

  async function call(method: string, target: string, headers: Record<string, string> = anonymous, body?: string) {
    const caller = callers[headers['x-internal-assertion'] ?? ''];
    const sent = caller
      ? { ...headers, 'x-internal-assertion': await assertionFor(caller, { service: 'catalog', method, path: target.split(/[?#]/)[0]! }) }
      : headers;
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(base);
      const req = http.request({ hostname, port, path: target, method, headers: sent, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }
  const json = async (method: string, target: string, headers?: Record<string, string>, body?: string) => {
    const res = await call(method, target, headers, body);
    return { status: res.status, body: res.body ? JSON.parse(res.body) : undefined, headers: res.headers };
  };

  it('takes a literal route over a parameter, whatever the binding order', async () => {
    expect((await json('GET', '/api/test/things/latest')).body).toEqual({ id: 'the latest route', n: 99, tags: [] });
    expect((await json('GET', '/api/test/things/latest/')).body).toEqual({ id: 'the latest route', n: 99, tags: [] });
    expect((await json('GET', '/api/test/things/other')).body).toEqual({ id: 'other', n: 0, tags: [] });
  });

  it('answers a trailing slash, HEAD and a fragment as the plain GET; another letter case is no route', async () => {
    const plain = await json('GET', '/api/test/things/abc?x=1');
    expect(plain).toMatchObject({ status: 200, body: { id: 'abc', n: 0, tags: [] } });
    expect(await json('GET', '/api/test/things/abc/?x=1')).toMatchObject({ status: 200, body: plain.body });
    // Express reads a URL with `#` by Node's URL parser, which leaves the fragment out of the path
    expect(await json('GET', '/api/test/things/abc#x/y')).toMatchObject({ status: 200, body: plain.body });
    const head = await call('HEAD', '/api/test/things/abc');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.body).toBe('');
    const other = await json('GET', '/API/Test/things/abc');
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('NOT_FOUND');
    expect((await json('DELETE', '/api/test/things/abc')).status).toBe(404);
  });

  it('decodes path parameters, and refuses one that does not decode or breaks its schema', async () => {
    expect((await json('GET', '/api/test/things/%E7%BC%93%E5%AD%98')).body.id).toBe('缓存');
    const undecodable = await json('GET', '/api/test/things/%E0%A4%A');
    expect(undecodable.status).toBe(400);
    expect(undecodable.body.code).toBe('BAD_REQUEST');
    const long = await json('GET', `/api/test/things/${'x'.repeat(21)}`);
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('VALIDATION_FAILED');
    const nul = await json('GET', '/api/test/things/a%00b');
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toEqual([{ path: 'path.id', message: 'must not contain NUL characters' }]);
  });

  it('refuses a request without a valid assertion, on either path', async () => {
    for (const target of ['/api/test/things/abc', '/api/test/things/abc/']) {
      const res = await json('GET', target, {});
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    }
  });

  it('parses a query string once and hands every request with it the same frozen answer', async () => {
    queriesSeen.length = 0;
    const first = await json('GET', '/api/test/things?n=3&tag=a&tag=b');
    const second = await json('GET', '/api/test/things?n=3&tag=a&tag=b');
    expect(first.body).toEqual({ id: 'list', n: 3, tags: ['a', 'b'] });
    expect(second.body).toEqual(first.body);
    expect(queriesSeen[0]).toBe(queriesSeen[1]);
    expect(Object.isFrozen(queriesSeen[0])).toBe(true);
    expect(Object.isFrozen((queriesSeen[0] as { tag: string[] }).tag)).toBe(true);
    // another string is parsed on its own, defaults included
    expect((await json('GET', '/api/test/things')).body).toEqual({ id: 'list', n: 1, tags: [] });
    expect((await json('GET', '/api/test/things?n=4')).body.n).toBe(4);
  });

  it('refuses a refused query string every time it comes', async () => {
    for (let i = 0; i < 2; i += 1) {
      const bad = await json('GET', '/api/test/things?n=-1');
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('query.n');
      const nul = await json('GET', '/api/test/things?tag=a%00');
      expect(nul.status).toBe(400);
      expect(nul.body.errors).toEqual([{ path: 'query.tag', message: 'must not contain NUL characters' }]);
      const unknown = await json('GET', '/api/test/things?what=1');
      expect(unknown.status).toBe(400);
    }
  });

  it('still checks the query of a route that declares none for NUL characters', async () => {
    expect((await json('GET', '/api/test/things/latest?x=1')).status).toBe(200);
    expect((await json('GET', '/api/test/things/latest?x=%00')).status).toBe(400);
  });

  it('reads JSON bodies and refuses malformed ones', async () => {
    const user = { 'x-internal-assertion': 'as user', 'content-type': 'application/json' };
    const made = await json('POST', '/api/test/things', user, '{"n":5}');
    expect(made).toMatchObject({ status: 201, body: { id: 'user', n: 5, tags: [] } });
    const malformed = await json('POST', '/api/test/things', user, '{"n":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('MALFORMED_JSON');
    const anonymousCaller = await json('POST', '/api/test/things', { ...anonymous, 'content-type': 'application/json' }, '{"n":5}');
    expect(anonymousCaller.status).toBe(401);
  });

  it('sends a prepared answer as its bytes with its entity tag, and 304 to a client holding it', async () => {
    const res = await call('GET', '/api/test/shared');
    expect(res.status).toBe(200);
    expect(res.body).toBe('{"id":"shared","n":1,"tags":["缓存"]}');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(res.headers.etag).toBe(prepared.etag);
    expect(res.headers['cache-control']).toBe('no-cache');
    const again = await call('GET', '/api/test/shared', { ...anonymous, 'if-none-match': `W/${prepared.etag}` });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(prepared.etag);
    const head = await call('HEAD', '/api/test/shared');
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers.etag).toBe(prepared.etag);
  });

  it('answers 304 by one rule, for a prepared body and a handler that writes its own, `Cache-Control: no-cache` or not', async () => {
    // fetch() sends `Cache-Control: no-cache` with every If-None-Match: a directive to caches, not to the origin
    const revalidating = { ...anonymous, 'cache-control': 'no-cache', pragma: 'no-cache' };
    for (const [target, etag] of [['/api/test/shared', prepared.etag], ['/api/test/bytes', '"bytes-v1"']] as const) {
      const fresh = await call('GET', target, { ...revalidating, 'if-none-match': etag });
      expect(fresh).toMatchObject({ status: 304, body: '' });
      expect(fresh.headers.etag).toBe(etag);
      expect((await call('HEAD', target, { ...anonymous, 'if-none-match': `"other", ${etag}` })).status).toBe(304);
      expect((await call('GET', target, { ...revalidating, 'if-none-match': '"stale"' })).status).toBe(200);
    }
    expect((await call('GET', '/api/test/bytes')).body).toBe('the bytes');
  });

  it('writes the access line pino would write, and a handler that logs gets the request id', async () => {
    const res = await call('GET', '/api/test/things/loud?secret=hidden', { ...anonymous, 'x-request-id': 'request-id-for-log-0001' });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('request-id-for-log-0001');
    const lines = readFileSync(logFile, 'utf8').trim().split('\n').filter((l) => l.includes('request-id-for-log-0001'));
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['handler speaking', 'request']);
    const access = lines[1]!;
    expect(access).not.toContain('hidden');
    expect(JSON.parse(access)).toEqual({
      level: 'info',
      time: expect.any(String),
      service: 'catalog',
      request_id: 'request-id-for-log-0001',
      method: 'GET',
      path: '/api/test/things/loud',
      status: 200,
      ms: expect.any(Number),
      msg: 'request',
    });
  });
});

describe('the access line', () => {
  it('is byte for byte what pino writes for the same fields, at every level, escapes included', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'access-line-'));
    try {
      const ours = path.join(dir, 'ours.log');
      const theirs = path.join(dir, 'theirs.log');
      const write = accessLogger(createLogger('gateway', 'debug', ours));
      const reference = pino(
        { level: 'debug', base: { service: 'gateway' }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
        pino.destination({ dest: theirs, sync: true }),
      );
      const lines = [
        { level: 'info' as const, line: { request_id: 'r-1', method: 'GET', path: '/api/x', status: 200, ms: 1.5 } },
        { level: 'warn' as const, line: { request_id: 'r-2', method: 'POST', path: '/api/"quoted"\\\u0001/ü', status: 502, ms: 30, upstream: 'catalog' } },
        { level: 'debug' as const, line: { request_id: 'r-3', method: 'GET', path: '/healthz', status: 200, ms: Number.NaN } },
        { level: 'error' as const, line: { request_id: 'r-4', method: 'GET', path: '/x', status: 500, ms: 0 } },
      ];
      for (const { level, line } of lines) {
        write(level, line);
        reference[level]({ ...line }, 'request');
      }
      const strip = (text: string) => text.replace(/"time":"[^"]+"/g, '"time":"T"');
      expect(strip(readFileSync(ours, 'utf8'))).toBe(strip(readFileSync(theirs, 'utf8')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is not written below the logger level', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'access-line-'));
    try {
      const file = path.join(dir, 'quiet.log');
      const write = accessLogger(createLogger('gateway', 'warn', file));
      write('info', { request_id: 'r-1', method: 'GET', path: '/a', status: 200, ms: 1 });
      write('warn', { request_id: 'r-2', method: 'GET', path: '/b', status: 503, ms: 1 });
      expect(readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).request_id)).toEqual(['r-2']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
