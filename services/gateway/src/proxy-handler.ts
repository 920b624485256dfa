import type { IncomingMessage, ServerResponse } from 'node:http';
import { allRoutes, RouteMatcher, type AnyRoute, type ServiceName } from '@market/contracts';
import { ASSERTION_HEADER, createAssertionSigner, Revocations, type Identity } from '@market/shared/auth';
import { Replicas, serviceAddresses, serviceUrls } from '@market/shared/config';
import { addressKey, InternalClient, Problem, problems, sendProblem } from '@market/shared/http';
import { type Logger } from '@market/shared/logging';
import { type RedisClient } from '@market/shared/redis';
import { createAuthenticator } from './authenticate';
import { hearChanges } from './change-notices';
import { clientAddressResolver } from './client-address';
import type { GatewayConfig } from './config';
import { MicroCache, microCacheKey } from './micro-cache';
import { createServiceProxy, createStreamProxy, onRefused, onUpstreamAnswer, type ProxyMiddleware } from './proxy';
import { createRateLimits } from './rate-limit';
import { refusedUploadReporter } from './refused-uploads';

/** Headers that would let a client speak for the gateway; never forwarded as sent. */
const CLIENT_FORBIDDEN_HEADER = /^(x-internal-|x-user-|x-admin-|x-identity|x-service-|x-client-|x-forwarded-|x-real-ip$|forwarded$)/;

/**
 * Removes what a client may not send. Header names arrive lower-cased; only names starting with
 * `x-` or `f` can be forbidden, so the pattern is tried on those alone.
 */
function stripClientIdentityHeaders(headers: IncomingMessage['headers']) {
  for (const name in headers) {
    const first = name.charCodeAt(0);
    if ((first === 120 /* x */ && name.charCodeAt(1) === 45) /* - */ || first === 102 /* f */) {
      if (CLIENT_FORBIDDEN_HEADER.test(name)) delete headers[name];
    }
  }
  delete headers.authorization;
}

const SERVED_BY = Symbol('served by');
const ROUTE_ID = Symbol('route id');
type Tagged = ServerResponse & { [SERVED_BY]?: ServiceName; [ROUTE_ID]?: string };

/** The id of the contract route a request matched (undefined when none did), for the metrics. */
export function routeIdOf(res: ServerResponse): string | undefined {
  return (res as Tagged)[ROUTE_ID];
}

/** Which service a response came from (undefined when the gateway answered itself). */
export function servedBy(res: ServerResponse): ServiceName | undefined {
  return (res as Tagged)[SERVED_BY];
}

/**
 * Whether a request carries no body: only such a request can be sent to another replica after a
 * refused connection, since the body of any other was already piped into the refused attempt and
 * the gateway keeps no copy of it (ADR 0046).
 */
function bodiless(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined;
}

/**
 * One service's proxies, one per replica (`proxies[i]` sends to `replicas.items[i]`), taken in turn
 * (ADR 0038). A replica that refuses the connection is set aside for a while, and a request without
 * a body goes on to the next replica (ADR 0046); a timeout or a 5xx answer is passed on as it is,
 * since the request may have been applied.
 */
function balancedProxy(replicas: Replicas<string>, proxies: ProxyMiddleware[]): ProxyMiddleware {
  if (proxies.length === 1) return proxies[0]!;
  return (req, res, done) => {
    let current = replicas.pick()!;
    // made at the first refusal only: a request that gets through on its first try pays nothing for it
    let tried: Set<number> | undefined;
    onRefused(req, () => {
      replicas.refused(current);
      if (!bodiless(req) || res.destroyed) return false;
      tried ??= new Set([current]);
      const next = replicas.pick(tried);
      if (next === undefined) return false;
      tried.add(next);
      current = next;
      proxies[next]!(req, res, done);
      return true;
    });
    proxies[current]!(req, res, done);
  };
}

function bodyLimit(route: AnyRoute, config: GatewayConfig): number {
  if (route.bodyType === 'multipart') return config.UPLOAD_BODY_LIMIT_BYTES;
  if (route.edge?.bodyLimit === 'open_upload') return config.OPEN_UPLOAD_BODY_LIMIT_BYTES;
  return config.JSON_BODY_LIMIT_BYTES;
}

/**
 * Everything a proxied request goes through: contract routing (anything else is a 404/405 here),
 * body limit, rate limits, authentication and revocation, header hygiene, the signed identity
 * assertion, then the service's proxy. Written against Node's request and response so the hot
 * path does not pay for Express's per-request setup, and without promises where nothing waits:
 * an anonymous request on a route without a shared rate limit goes through in one synchronous
 * call (ADR 0025); tokens (revocation in Redis) and shared limits wait for their answers.
 *
 * `servedBy(res)` tells, for the access line, which service the request was sent to;
 * `setAside()`, for the metrics, how many replicas of each service are passed over (ADR 0046).
 */
export function createProxyHandler(config: GatewayConfig, redis: RedisClient, log: Logger) {
  // the public surface is exactly the route contracts: anything else is a 404 (or 405) here and
  // never reaches a service, which is also what keeps `/internal/*` unreachable from outside
  const routes = new RouteMatcher(allRoutes);
  const authenticate = createAuthenticator(
    { user: config.USER_TOKEN_SECRET, admin: config.ADMIN_TOKEN_SECRET },
    new Revocations(redis, config.REDIS_KEY_PREFIX),
  );
  const rateLimit = createRateLimits(redis, config);
  const sign = createAssertionSigner(config.internalKeys.signing);
  const clientAddress = clientAddressResolver(config.TRUST_PROXY);
  const reportRefusedUpload = refusedUploadReporter(
    new InternalClient(serviceUrls(config), (target) => sign({ kind: 'service', sub: 'gateway', ip: null }, target), undefined, config.GATEWAY_REPLICA_EJECT_MS),
    log,
  );
  // one proxy per address of a service; requests take a service's replicas in turn (ADR 0038),
  // passing over the ones that refused a connection a moment ago (ADR 0046)
  const replicas = Object.fromEntries(
    Object.entries(serviceAddresses(config)).map(([service, urls]) => [service, new Replicas(urls, config.GATEWAY_REPLICA_EJECT_MS)]),
  ) as Record<ServiceName, Replicas<string>>;
  const balanced = (make: (url: string) => ProxyMiddleware) =>
    Object.fromEntries(
      Object.entries(replicas).map(([service, set]) => [service, balancedProxy(set, set.items.map(make))]),
    ) as Record<ServiceName, ProxyMiddleware>;
  const proxies = balanced((url) => createServiceProxy(url, config.UPSTREAM_TIMEOUT_MS, log));
  const microCache = new MicroCache(config.GATEWAY_MICRO_CACHE_MS);
  if (microCache.enabled) hearChanges(microCache, redis, config.REDIS_KEY_PREFIX, log);
  const streamProxies = balanced((url) => createStreamProxy(url, log));

  /** Rate limits first: a flood of oversized uploads must not turn into a flood of records. */
  function admit(req: IncomingMessage, res: ServerResponse, path: string, requestId: string, route: AnyRoute): Promise<void> | void {
    const ip = clientAddress(req);
    // an IPv6 client counts as its /64, which one subscriber holds whole
    const limited = rateLimit(route, addressKey(ip));
    if (limited) return limited.then(() => checkBodyAndCaller(req, res, path, requestId, route, ip));
    return checkBodyAndCaller(req, res, path, requestId, route, ip);
  }

  function checkBodyAndCaller(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    requestId: string,
    route: AnyRoute,
    ip: string | null,
  ): Promise<void> | void {
    if (Number(req.headers['content-length'] ?? 0) > bodyLimit(route, config)) return refuseBody(req, route, ip, requestId);
    const identity = authenticate(route, req.headers.authorization, ip);
    if (identity instanceof Promise) return identity.then((known) => send(req, res, path, requestId, route, known));
    return send(req, res, path, requestId, route, identity);
  }

  async function refuseBody(req: IncomingMessage, route: AnyRoute, ip: string | null, requestId: string) {
    const refusal = problems.payloadTooLarge();
    if (route.edge?.recordsRefusals) await reportRefusedUpload(req, refusal, { ip, requestId });
    throw refusal;
  }

  /**
   * The assertion is made for the service, method and path this request was routed by: the path
   * the route table matched is the one the service matches too (the proxy forwards `req.url` as
   * received), and the query string is left out (ADR 0053).
   */
  function send(req: IncomingMessage, res: ServerResponse, path: string, requestId: string, route: AnyRoute, identity: Identity): Promise<void> | void {
    if (identity.kind === 'anonymous' && route.edge?.microCache && req.method === 'GET' && microCache.enabled) {
      const key = microCacheKey(req.url ?? path);
      if (microCache.answer(route.service, key, req, res)) return;
      const generation = microCache.generation(route.service);
      onUpstreamAnswer(res, (upstream) => microCache.keep(route.service, key, upstream, generation));
    }
    const assertion = sign(identity, { audience: route.service, method: req.method ?? 'GET', path });
    if (assertion instanceof Promise) return assertion.then((signed) => forward(req, res, path, requestId, route, signed));
    forward(req, res, path, requestId, route, assertion);
  }

  function forward(req: IncomingMessage, res: ServerResponse, path: string, requestId: string, route: AnyRoute, assertion: string) {
    stripClientIdentityHeaders(req.headers);
    req.headers[ASSERTION_HEADER] = assertion;
    req.headers['x-request-id'] = requestId;
    (res as Tagged)[SERVED_BY] = route.service;
    if (route.method !== 'get' && microCache.enabled) {
      // a write may change what the service's kept answers say: they go now and once it is done
      microCache.drop(route.service);
      res.once('close', () => microCache.drop(route.service));
    }
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

  const handle = (req: IncomingMessage, res: ServerResponse, path: string, requestId: string) => {
    const method = req.method ?? 'GET';
    const route = routes.match(method, path)?.route;
    if (!route) {
      const allowed = routes.allowedMethods(path);
      if (allowed.length > 0) {
        res.setHeader('Allow', allowed.join(', '));
        fail(res, path, new Problem(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here`));
      } else {
        fail(res, path, problems.notFound(`no route for ${method} ${path}`));
      }
      return;
    }
    (res as Tagged)[ROUTE_ID] = route.id;
    try {
      const waiting = admit(req, res, path, requestId, route);
      if (waiting) waiting.catch((err: unknown) => fail(res, path, err));
    } catch (err) {
      fail(res, path, err);
    }
  };
  /** For the metrics: how many replicas of each service are set aside right now. */
  const setAside = () => Object.entries(replicas).map(([service, set]) => ({ service: service as ServiceName, count: set.setAside() }));
  return Object.assign(handle, { setAside });
}
