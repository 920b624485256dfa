import express, { type Express, type Request, type Response, type NextFunction } from 'express';
import type { Logger } from 'pino';
import { accessLogger } from '../logging/logger';
import { ASSERTION_HEADER, type Identity } from '../auth/assertion';
import { errorHandler, notFoundHandler, sendProblem } from './error-handler';
import { problems } from './problem';
import { acceptRequestId, runWithRequestId } from '../context/request-context';
import type { IdempotencyStore } from './idempotency';
import { mountInternalRoutes, type InternalBinding } from './internal-routes';
import { mountRoutes, type RouteBinding } from './routes';

export interface ServiceAppOptions {
  log: Logger;
  verifyAssertion: (token: string | undefined) => Identity | null;
  routes: RouteBinding[];
  /** `/internal/*` routes for other services; only callers with a service assertion reach them */
  internal?: InternalBinding[];
  /** JSON body limit */
  jsonLimit?: string;
  validateResponses: boolean;
  idempotency?: IdempotencyStore;
  readiness: () => Promise<Record<string, boolean>>;
}

function requestLogging(log: Logger) {
  const access = accessLogger(log);
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = acceptRequestId(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    res.locals.requestId = requestId;
    // Most requests never log but the access line: the child logger is made only for those that do.
    let child: Logger | undefined;
    Object.defineProperty(res.locals, 'log', { get: () => (child ??= log.child({ request_id: requestId })), enumerable: true });
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : req.path === '/healthz' || req.path === '/readyz' ? 'debug' : 'info';
      access[level]({ request_id: requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    runWithRequestId(requestId, next);
  };
}

/** The Express app every service runs: request ids, identity assertion, validated routes, problem errors. */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLogging(opts.log));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await opts.readiness();
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });

  app.use((req, res, next) => {
    const identity = opts.verifyAssertion(req.header(ASSERTION_HEADER));
    if (!identity) {
      sendProblem(res, problems.unauthenticated('requests must come through the gateway'), req.path);
      return;
    }
    res.locals.identity = identity;
    next();
  });

  const jsonLimit = opts.jsonLimit ?? '100kb';
  // Routes that declare a raw body read it themselves; the JSON parser leaves it to them.
  const rawBody = new Set(
    opts.routes.filter((r) => r.contract.bodyType === 'raw').map((r) => `${r.contract.method.toUpperCase()} ${r.contract.path}`),
  );
  const json = express.json({ limit: jsonLimit });
  app.use((req, res, next) => (rawBody.has(`${req.method} ${req.path.replace(/(.)\/$/, '$1')}`) ? next() : json(req, res, next)));

  if (opts.internal) {
    const internal = express.Router();
    internal.use((_req, res, next) => {
      if ((res.locals.identity as Identity).kind !== 'service') throw problems.notFound();
      next();
    });
    mountInternalRoutes(internal, opts.internal, { validateResponses: opts.validateResponses });
    app.use('/internal', internal);
  }

  const router = express.Router();
  mountRoutes(router, opts.routes, { validateResponses: opts.validateResponses, idempotency: opts.idempotency, jsonLimit });
  app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler(opts.log));
  return app;
}
