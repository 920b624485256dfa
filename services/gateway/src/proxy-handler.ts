import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AnyRoute, type ServiceName } from '@market/contracts';
import { ASSERTION_HEADER, createAssertionSigner, Revocations } from '@market/shared/auth';
import { serviceUrls } from '@market/shared/config';
import { InternalClient, Problem, problems, sendProblem } from '@market/shared/http';
import { type Logger } from '@market/shared/logging';
import { type RedisClient } from '@market/shared/redis';
import { createAuthenticator } from './authenticate';
import { clientAddressResolver } from './client-address';
import type { GatewayConfig } from './config';
import { createServiceProxy, createStreamProxy, type ProxyMiddleware } from './proxy';
import { createRateLimits } from './rate-limit';
import { refusedUploadReporter } from './refused-uploads';
import { RouteTable } from './route-table';

/** Headers that would let a client speak for the gateway; never forwarded as sent. */
const CLIENT_FORBIDDEN_HEADER = /^(x-internal-|x-user-|x-admin-|x-identity|x-service-|x-client-|x-forwarded-|x-real-ip$|forwarded$)/;

/** Which service answered a response, for the access log. */
export const servedBy = new WeakMap<ServerResponse, ServiceName>();

function bodyLimit(route: AnyRoute, config: GatewayConfig): number {
  if (route.bodyType === 'multipart') return config.UPLOAD_BODY_LIMIT_BYTES;
  if (route.edge?.bodyLimit === 'open_upload') return config.OPEN_UPLOAD_BODY_LIMIT_BYTES;
  return config.JSON_BODY_LIMIT_BYTES;
}

/**
 * Everything a proxied request goes through: contract routing (anything else is a 404/405 here),
 * body limit, rate limits, authentication and revocation, header hygiene, the signed identity
 * assertion, then the service's proxy. Written against Node's request and response so the hot
 * path does not pay for Express's per-request setup.
 */
export function createProxyHandler(config: GatewayConfig, redis: RedisClient, log: Logger) {
  const table = new RouteTable();
  const authenticate = createAuthenticator(
    { user: config.USER_TOKEN_SECRET, admin: config.ADMIN_TOKEN_SECRET },
    new Revocations(redis, config.REDIS_KEY_PREFIX),
  );
  const rateLimit = createRateLimits(redis, config);
  const sign = createAssertionSigner(config.INTERNAL_ASSERTION_SECRET, 'gateway');
  const clientAddress = clientAddressResolver(config.TRUST_PROXY);
  const reportRefusedUpload = refusedUploadReporter(
    new InternalClient(serviceUrls(config), () => sign({ kind: 'service', sub: 'gateway', ip: null })),
    log,
  );
  const proxies = Object.fromEntries(
    Object.entries(serviceUrls(config)).map(([service, url]) => [service, createServiceProxy(url, config.UPSTREAM_TIMEOUT_MS, log)]),
  ) as Record<ServiceName, ProxyMiddleware>;
  const streamProxies = Object.fromEntries(
    Object.entries(serviceUrls(config)).map(([service, url]) => [service, createStreamProxy(url, log)]),
  ) as Record<ServiceName, ProxyMiddleware>;

  async function forward(req: IncomingMessage, res: ServerResponse, path: string) {
    const method = req.method ?? 'GET';
    const route = table.match(method, path);
    if (!route) {
      const allowed = table.allowedMethods(path);
      if (allowed.length > 0) {
        res.setHeader('Allow', allowed.join(', '));
        throw new Problem(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here`);
      }
      throw problems.notFound(`no route for ${method} ${path}`);
    }
    // Rate limits first: a flood of oversized uploads must not turn into a flood of records.
    const ip = clientAddress(req);
    await rateLimit(route, ip ?? 'unknown');
    if (Number(req.headers['content-length'] ?? 0) > bodyLimit(route, config)) {
      const refusal = problems.payloadTooLarge();
      if (route.edge?.recordsRefusals) {
        await reportRefusedUpload(req, refusal, { ip, requestId: res.getHeader('x-request-id') as string });
      }
      throw refusal;
    }
    const identity = await authenticate(route, req.headers.authorization, ip);

    for (const name of Object.keys(req.headers)) {
      if (CLIENT_FORBIDDEN_HEADER.test(name)) delete req.headers[name];
    }
    delete req.headers.authorization;
    req.headers[ASSERTION_HEADER] = sign(identity);
    req.headers['x-request-id'] = res.getHeader('x-request-id') as string;
    servedBy.set(res, route.service);
    (route.stream ? streamProxies : proxies)[route.service](req, res, (err?: unknown) => {
      if (err) fail(res, path, err);
    });
  }

  function fail(res: ServerResponse, path: string, err: unknown) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof Problem) {
      sendProblem(res, err, path);
      return;
    }
    log.error({ err }, 'gateway error');
    sendProblem(res, new Problem(500, 'INTERNAL', 'something went wrong on our side'), path);
  }

  return (req: IncomingMessage, res: ServerResponse, path: string) => {
    forward(req, res, path).catch((err) => fail(res, path, err));
  };
}
