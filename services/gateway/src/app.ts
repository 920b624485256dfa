import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import {
  acceptRequestId,
  ASSERTION_HEADER,
  createAssertionSigner,
  errorHandler,
  Problem,
  problems,
  sendProblem,
  type AnyRoute,
  type Logger,
  Revocations,
  type RedisClient,
  type ServiceName,
} from '@market/shared';
import { createAuthenticator } from './authenticate';
import type { GatewayConfig } from './config';
import { gatewayOpenApiDocument } from './openapi';
import { createServiceProxy } from './proxy';
import { createRateLimits } from './rate-limit';
import { RouteTable } from './route-table';

/** Headers that would let a client speak for the gateway; never forwarded as sent. */
const CLIENT_FORBIDDEN_HEADER = /^(x-internal-|x-user-|x-admin-|x-identity|x-service-|x-client-|x-forwarded-|x-real-ip$|forwarded$)/;

function serviceUrls(config: GatewayConfig): Record<ServiceName, string> {
  return {
    identity: config.IDENTITY_URL,
    catalog: config.CATALOG_URL,
    orders: config.ORDERS_URL,
    wallet: config.WALLET_URL,
    files: config.FILES_URL,
    notify: config.NOTIFY_URL,
    admin: config.ADMIN_URL,
  };
}

function bodyLimit(route: AnyRoute, config: GatewayConfig): number {
  if (route.bodyType === 'multipart') return config.UPLOAD_BODY_LIMIT_BYTES;
  if (route.id === 'openUploadListings') return config.OPEN_UPLOAD_BODY_LIMIT_BYTES;
  return config.JSON_BODY_LIMIT_BYTES;
}

export function createGatewayApp(config: GatewayConfig, redis: RedisClient, log: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY === 'false' ? false : config.TRUST_PROXY === 'true' ? true : config.TRUST_PROXY);

  const table = new RouteTable();
  const authenticate = createAuthenticator(
    { user: config.USER_TOKEN_SECRET, admin: config.ADMIN_TOKEN_SECRET },
    new Revocations(redis, config.REDIS_KEY_PREFIX),
  );
  const rateLimit = createRateLimits(redis, config);
  const sign = createAssertionSigner(config.INTERNAL_ASSERTION_SECRET, 'gateway');
  const urls = serviceUrls(config);
  const proxies = Object.fromEntries(
    Object.entries(urls).map(([service, url]) => [service, createServiceProxy(url, config.UPSTREAM_TIMEOUT_MS, log)]),
  ) as Record<ServiceName, express.RequestHandler>;
  const document = gatewayOpenApiDocument();

  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = acceptRequestId(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    res.locals.requestId = requestId;
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log[res.statusCode >= 500 ? 'warn' : 'info'](
        { request_id: requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10, service: res.locals.service },
        'request',
      );
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, boolean> = {
      redis: await redis.ping().then(() => true, () => false),
    };
    await Promise.all(
      Object.entries(urls).map(async ([service, url]) => {
        checks[service] = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
          (r) => r.ok,
          () => false,
        );
      }),
    );
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  app.get('/api/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use('/api/docs', swaggerUi.serve, swaggerUi.setup(undefined, { swaggerOptions: { url: '/api/openapi.json' } }));

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const route = table.match(req.method, req.path);
    if (!route) {
      const allowed = table.allowedMethods(req.path);
      if (allowed.length > 0) {
        res.setHeader('Allow', allowed.join(', '));
        throw new Problem(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here`);
      }
      throw problems.notFound(`no route for ${req.method} ${req.path}`);
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > bodyLimit(route, config)) throw problems.payloadTooLarge();

    const ip = req.ip ?? req.socket.remoteAddress ?? null;
    await rateLimit(route, ip ?? 'unknown');
    const identity = await authenticate(route, req.headers.authorization, ip);

    for (const name of Object.keys(req.headers)) {
      if (CLIENT_FORBIDDEN_HEADER.test(name)) delete req.headers[name];
    }
    delete req.headers.authorization;
    req.headers[ASSERTION_HEADER] = sign(identity);
    req.headers['x-request-id'] = res.locals.requestId;
    res.locals.service = route.service;
    proxies[route.service](req, res, next);
  });

  app.use(errorHandler(log));
  app.use((req: Request, res: Response) => sendProblem(res, problems.notFound(), req.path));
  return app;
}
