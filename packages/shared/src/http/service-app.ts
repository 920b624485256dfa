import express, { type Express, type Request, type Response, type NextFunction } from 'express';
import type { Logger } from 'pino';
import { ASSERTION_HEADER, type Identity } from '../auth/assertion';
import { errorHandler, notFoundHandler, sendProblem } from './error-handler';
import { problems } from './problem';
import { acceptRequestId, runWithRequestId } from './request-context';
import type { IdempotencyStore } from './idempotency';
import { mountInternalRoutes, type InternalBinding } from './internal-routes';
import { expressPath, mountRoutes, type RouteBinding } from './routes';

export interface ServiceAppOptions {
  log: Logger;
  verifyAssertion: (token: string | undefined) => Identity | null;
  routes: RouteBinding[];
  /** `/internal/*` routes for other services; only callers with a service assertion reach them */
  internal?: InternalBinding[];
  /** JSON body limit; paths in `largeBodyPaths` get `largeBodyLimit` */
  jsonLimit?: string;
  largeBodyPaths?: string[];
  largeBodyLimit?: string;
  validateResponses: boolean;
  idempotency?: IdempotencyStore;
  readiness: () => Promise<Record<string, boolean>>;
}

function requestLogging(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = acceptRequestId(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    res.locals.requestId = requestId;
    res.locals.log = log.child({ request_id: requestId });
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : req.path === '/healthz' || req.path === '/readyz' ? 'debug' : 'info';
      res.locals.log[level]({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
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

  // Routes that verify a signature over the body get its bytes untouched, whatever the content type;
  // the JSON parser below then leaves such a request alone.
  const rawParser = express.raw({ type: () => true, limit: opts.jsonLimit ?? '100kb' });
  for (const { contract } of opts.routes.filter((r) => r.contract.rawBody)) {
    app[contract.method](expressPath(contract.path), rawParser);
  }
  const largeParser = express.json({ limit: opts.largeBodyLimit ?? '1mb' });
  for (const path of opts.largeBodyPaths ?? []) app.use(path, largeParser);
  app.use(express.json({ limit: opts.jsonLimit ?? '100kb' }));

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
  mountRoutes(router, opts.routes, { validateResponses: opts.validateResponses, idempotency: opts.idempotency });
  app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler(opts.log));
  return app;
}
