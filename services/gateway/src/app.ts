import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import swaggerUi from 'swagger-ui-express';
import { acceptRequestId } from '@market/shared/context';
import { currentTraceId } from '@market/shared/tracing';
import { errorHandler, notFoundHandler, sendProblem } from '@market/shared/http';
import { accessLogger, type Logger } from '@market/shared/logging';
import { type RedisClient } from '@market/shared/redis';
import type { GatewayConfig } from './config';
import { consoleRoutes } from './console';
import type { GatewayMetrics } from './metrics';
import { gatewayOpenApiDocument } from './openapi';
import { createProxyHandler, servedBy } from './proxy-handler';
import { createReadiness, gatewayStatusCode, sendReadiness, systemStatusCode, type Readiness } from './readiness';
import { isPlainRequestTarget, malformedRequestTarget } from './request-target';

/**
 * The OpenAPI document depends only on the contracts: built once per process, at its first request
 * (a fifth of a second of CPU, spent once where a test file starts several gateways).
 */
let document: ReturnType<typeof gatewayOpenApiDocument> | undefined;

/** The gateway's own routes: health, its own readiness (ADR 0056), the OpenAPI document and its docs UI. */
function createOwnRoutes(config: GatewayConfig, readiness: Readiness, log: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res, next) => {
    readiness.gateway().then((view) => sendReadiness(res, view, gatewayStatusCode(view)), next);
  });
  app.get('/api/openapi.json', (_req, res) => {
    res.json((document ??= gatewayOpenApiDocument()));
  });
  app.use('/api/docs', swaggerUi.serve, swaggerUi.setup(undefined, { swaggerOptions: { url: '/api/openapi.json' } }));
  app.get('/admin', (req, res, next) => {
    // '/admin' and '/admin/' match the same route; only the bare one is redirected
    if (req.originalUrl.split('?')[0] === '/admin') res.redirect(301, '/admin/');
    else next();
  });
  app.use('/admin/', consoleRoutes(config.CONSOLE_DIR));
  app.use(notFoundHandler);
  app.use(errorHandler(log));
  return app;
}

function isGatewayOwnPath(path: string): boolean {
  return !path.startsWith('/api/') || path === '/api/openapi.json' || path === '/api/docs' || path.startsWith('/api/docs/');
}

/**
 * The gateway's request listener. Every response gets a request id and an access-log line; a
 * request target the services could read as another path is refused first (400
 * MALFORMED_REQUEST_TARGET); `/api/*` routes of the contracts go to the proxy handler, everything else to the Express app
 * of the gateway's own routes (which answers 404 for anything unknown, `/internal/*` included).
 */
export function createGateway(config: GatewayConfig, redis: RedisClient, log: Logger, metrics?: GatewayMetrics): RequestListener {
  const readiness = createReadiness(config, redis);
  metrics?.serveSystemReadiness((res) => void readiness.system().then((view) => sendReadiness(res, view, systemStatusCode(view))));
  const ownRoutes = createOwnRoutes(config, readiness, log);
  const proxy = createProxyHandler(config, redis, log);
  metrics?.watchReplicas(proxy.setAside);
  const access = accessLogger(log);
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = acceptRequestId(req.headers['x-request-id']);
    const traceId = currentTraceId();
    res.setHeader('x-request-id', requestId);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    res.on('finish', () => {
      const status = res.statusCode;
      const ms = performance.now() - started;
      metrics?.observe(res, req.method ?? '', path, ms / 1000);
      access(status >= 500 ? 'warn' : 'info', {
        request_id: requestId,
        method: req.method ?? '',
        path,
        status,
        ms: Math.round(ms * 10) / 10,
        upstream: servedBy(res),
        trace_id: traceId,
      });
    });
    if (!isPlainRequestTarget(url)) sendProblem(res, malformedRequestTarget(), path);
    else if (isGatewayOwnPath(path)) ownRoutes(req, res);
    else proxy(req, res, path, requestId);
  };
}
