import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http, { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@market/shared/logging';
import { connectRedis, type RedisClient } from '@market/shared/redis';
import { internalKeysFor, resolveInfra, testAssertionVerifier, uniqueName } from '@market/shared/testing';
import { mintToken } from '@market/testkit';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';

/**
 * The gateway's proxy path against a stand-in for catalog that records what reaches it: what a
 * service is sent (ADR 0009, 0023), the access line, and the answers when the upstream fails.
 */
describe('the proxy path, seen from the service behind it', () => {
  const logDir = mkdtempSync(path.join(tmpdir(), 'gateway-proxy-'));
  const logFile = path.join(logDir, 'gateway.log');
  let redis: RedisClient;
  let upstream: Server;
  let gateway: Server;
  let base: string;
  let seen: IncomingMessage[] = [];
  /** what the stand-in does with the next requests (default: a small JSON answer) */
  let behave: (req: IncomingMessage, res: ServerResponse) => void;
  const verify = testAssertionVerifier('catalog');

  const answerJson = (_req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('etag', '"v1"');
    res.end('{"items":[],"next_cursor":null}');
  };

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(req);
      behave(req, res);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const catalog = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const config = loadGatewayConfig({
      NODE_ENV: 'development',
      ...internalKeysFor('gateway'),
      CATALOG_URL: catalog,
      // identity: a port nothing listens on
      IDENTITY_URL: 'http://127.0.0.1:9',
      UPSTREAM_TIMEOUT_MS: '300',
      REDIS_KEY_PREFIX: `${uniqueName('t')}:`,
      LOG_LEVEL: 'info',
    });
    redis = await connectRedis((await resolveInfra()).REDIS_URL, createLogger('test', 'silent'));
    gateway = createServer(createGateway(config, redis, createLogger('gateway', 'info', logFile)));
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
    behave = answerJson;
  });
  afterAll(async () => {
    gateway.closeAllConnections();
    upstream.closeAllConnections();
    await new Promise((resolve) => gateway.close(resolve));
    await new Promise((resolve) => upstream.close(resolve));
    await redis.quit();
    rmSync(logDir, { recursive: true, force: true });
  });

  /** A request with exactly this path and these headers (fetch would normalize both). */
  function raw(method: string, target: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(base);
      // the request line as given: no normalization of the path
      const req = http.request({ hostname, port, path: target, method, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('sends the service the path as routed, a fresh assertion and the request id, and none of the headers a client may not send', async () => {
    const res = await raw('GET', '/api/listings?limit=20&q=%E7%9A%AE', {
      'x-request-id': 'client-request-0001',
      'x-internal-assertion': 'forged',
      'x-user-id': 'someone',
      'x-admin-id': 'someone',
      'x-forwarded-for': '6.6.6.6',
      'x-real-ip': '6.6.6.6',
      forwarded: 'for=6.6.6.6',
      'x-client-cert': 'forged',
      'x-custom': 'kept',
      authorization: `Bearer ${mintToken('user')}`,
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('client-request-0001');
    expect(res.headers.etag).toBe('"v1"');
    expect(seen).toHaveLength(1);
    const received = seen[0]!;
    expect(received.url).toBe('/api/listings?limit=20&q=%E7%9A%AE');
    expect(received.headers['x-request-id']).toBe('client-request-0001');
    expect(received.headers['x-custom']).toBe('kept');
    for (const name of ['x-user-id', 'x-admin-id', 'x-forwarded-for', 'x-real-ip', 'forwarded', 'x-client-cert', 'authorization']) {
      expect(received.headers[name]).toBeUndefined();
    }
    // the public list ignores tokens: the caller is anonymous, at the socket's address
    // made for this request: the method and the path the gateway routed, without the query string (ADR 0053)
    const assertion = received.headers['x-internal-assertion'] as string;
    expect(await verify(assertion, 'GET', '/api/listings')).toEqual({ kind: 'anonymous', ip: '127.0.0.1' });
    expect(await verify(assertion, 'GET', '/api/listings/other')).toBeNull();
  });

  it('never sends on a path the service would read otherwise: a backslash is refused, not rewritten', async () => {
    const res = await raw('GET', '/api/listings/abc\\def');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'MALFORMED_REQUEST_TARGET' });
    expect(seen).toHaveLength(0);
  });

  it('writes one JSON access line per request: the upstream, no query, no header values', async () => {
    const res = await raw('GET', '/api/listings?limit=20&token=very-secret-value', {
      authorization: 'Bearer also-secret',
      'x-request-id': 'client-request-0002',
    });
    expect(res.status).toBe(200);
    const refused = await raw('GET', '/api/nothing-here', { 'x-request-id': 'client-request-0003' });
    expect(refused.status).toBe(404);
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    const text = lines.find((l) => l.includes('client-request-0002'))!;
    expect(text).not.toContain('very-secret-value');
    expect(text).not.toContain('secret');
    // the gateway's own service key comes first, as pino writes child keys; the service that answered is `upstream`
    expect(text).toMatch(/^\{"level":"info","time":"[^"]+","service":"gateway","request_id":"client-request-0002",/);
    expect(JSON.parse(text)).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      service: 'gateway',
      request_id: 'client-request-0002',
      method: 'GET',
      path: '/api/listings',
      status: 200,
      ms: expect.any(Number),
      upstream: 'catalog',
      msg: 'request',
    });
    const notFound = JSON.parse(lines.find((l) => l.includes('client-request-0003'))!);
    expect(notFound).toMatchObject({ service: 'gateway', path: '/api/nothing-here', status: 404 });
  });

  it('answers 503 when the service refuses connections and 502 when it fails mid-exchange or is too slow', async () => {
    const down = await raw('POST', '/api/auth/sms/send');
    expect(down.status).toBe(503);
    expect(down.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(down.body)).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', instance: '/api/auth/sms/send' });

    behave = (req) => req.socket.destroy();
    const reset = await raw('GET', '/api/listings');
    expect(reset.status).toBe(502);
    expect(JSON.parse(reset.body)).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', instance: '/api/listings' });

    behave = () => undefined; // never answers: UPSTREAM_TIMEOUT_MS (300 ms) ends it
    const slow = await raw('GET', '/api/listings');
    expect(slow.status).toBe(502);
  });

  it('drops the upstream response of an answer the client stopped reading', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    behave = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(1024));
      // never ends by itself; the gateway must let go of it when the client leaves
      res.on('close', () => upstreamClosed());
    };
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/api/listings`, { agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    await closed;
  });
});
