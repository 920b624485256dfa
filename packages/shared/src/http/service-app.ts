import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { accessLogger } from '../logging/logger';
import type { Metrics } from '../metrics/registry';
import { currentTraceId } from '../tracing';
import { ASSERTION_HEADER, type Identity } from '../auth/assertion';
import { errorHandler, notFoundHandler, sendProblem } from './error-handler';
import type { ErrorStatuses } from './error-statuses';
import { problems } from './problem';
import { acceptRequestId, runWithRequestId } from '../context/request-context';
import type { IdempotencyStore } from './idempotency';
import { mountInternalRoutes, type InternalBinding } from './internal-routes';
import { ContractRoutes, mountRoutes, type RouteBinding } from './routes';

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
  /** the service's domain error codes and the status each is answered with (ADR 0041) */
  errorStatuses?: ErrorStatuses;
  /** observes every request and answers `/metrics` (before the assertion check: Prometheus scrapes the service's own port) */
  metrics?: Metrics;
}

/**
 * `res.locals` of a request: its id, and its child logger, made only when something reads it (most
 * requests log nothing but the access line).
 */
class RequestLocals {
  [key: string]: unknown;
  private child: Logger | undefined;

  constructor(
    readonly requestId: string,
    private readonly root: Logger,
  ) {}

  get log(): Logger {
    return (this.child ??= this.root.child({ request_id: this.requestId }));
  }
}

/** Whether a request declares a body (type-is `hasBody`, as body-parser reads it). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

type Found = NonNullable<ReturnType<ContractRoutes['match']>>;

/**
 * What every request gets first: its request id (kept from the caller when it looks like one),
 * `res.locals` and the access line when the answer is finished.
 */
/** The route label of a request no contract route took. */
const OWN_ROUTES: Record<string, string> = { '/healthz': 'healthz', '/readyz': 'readyz', '/metrics': 'metrics' };

function requestBookkeeping(log: Logger, metrics: Metrics | undefined) {
  const access = accessLogger(log);
  return (req: Request, res: Response, path: string): string => {
    const started = performance.now();
    const requestId = acceptRequestId(req.headers['x-request-id']);
    const traceId = currentTraceId();
    res.setHeader('x-request-id', requestId);
    res.locals = new RequestLocals(requestId, log);
    res.on('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : path === '/healthz' || path === '/readyz' ? 'debug' : 'info';
      const ms = performance.now() - started;
      access(level, { request_id: requestId, method: req.method, path, status, ms: Math.round(ms * 10) / 10, trace_id: traceId });
      metrics?.observeHttp((res.locals.routeId as string | undefined) ?? OWN_ROUTES[path] ?? 'unmatched', req.method, status, ms / 1000);
    });
    return requestId;
  };
}

/**
 * The Express app every service runs: request ids, identity assertion, validated routes, problem
 * errors.
 *
 * A request for a contract route found in the route table (ADR 0025) is taken before Express's
 * router: the app's `handle` gives it Express's request and response (prototypes and links, as
 * Express does) and runs the same steps the middleware stack below would — request id and access
 * line, assertion, JSON body, the route's handler, the error handler — without the router's walk
 * over its layers, which cost a tenth of catalog's CPU on a cached read. Everything else (health,
 * `/internal/*`, 404s, an app mounted in another, and what the table leaves to the router: another
 * letter case, a trailing slash, HEAD, an odd URL) goes through the stack, where the same handlers
 * are mounted.
 */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const jsonLimit = opts.jsonLimit ?? '100kb';
  const routes = new ContractRoutes(opts.routes, { validateResponses: opts.validateResponses, idempotency: opts.idempotency, jsonLimit });
  const json = express.json({ limit: jsonLimit });
  const begin = requestBookkeeping(opts.log, opts.metrics);
  const handleError = errorHandler(opts.log, opts.errorStatuses);

  app.use((req, res, next) => {
    const requestId = begin(req, res, req.path);
    runWithRequestId(requestId, next);
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await opts.readiness();
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  const metrics = opts.metrics;
  if (metrics) {
    app.get('/metrics', async (_req, res) => {
      const { contentType, body } = await metrics.exposition();
      res.type(contentType).send(body);
    });
  }

  app.use((req, res, next) => {
    const identity = opts.verifyAssertion(req.header(ASSERTION_HEADER));
    if (!identity) {
      sendProblem(res, problems.unauthenticated('requests must come through the gateway'), req.path);
      return;
    }
    res.locals.identity = identity;
    next();
  });

  const jsonUnlessRaw = jsonBodyUnlessRaw(opts.routes, json);
  app.use(jsonUnlessRaw);

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
  mountRoutes(router, routes);
  app.use(router);
  app.use(notFoundHandler);
  app.use(handleError);

  /** The steps of the stack above for a contract route the table found. */
  function runFound(req: Request, res: Response, path: string, found: Found) {
    const fail = (err: unknown) => handleError(err, req, res, () => undefined);
    const identity = opts.verifyAssertion(req.headers[ASSERTION_HEADER] as string | undefined);
    if (!identity) {
      sendProblem(res, problems.unauthenticated('requests must come through the gateway'), path);
      return;
    }
    res.locals.identity = identity;
    res.locals.routeId = found.contract.id;
    req.params = found.params;
    const handle = () => {
      found.handle(req, res, found.params).catch(fail);
    };
    if (found.contract.bodyType === 'raw') handle();
    else if (!hasBody(req)) {
      if (!Reflect.has(req, 'body')) req.body = undefined;
      handle();
    } else {
      json(req, res, (err?: unknown) => (err ? fail(err) : handle()));
    }
  }

  const dispatch = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void };
  const expressHandle = dispatch.handle;
  dispatch.handle = function handle(this: unknown, req, res, next) {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    // mounted in another app (`next` given), or a URL the table does not read: Express as usual
    const found = next === undefined && !url.includes('#') ? routes.match(req.method ?? '', path) : undefined;
    if (!found) {
      expressHandle.call(this, req, res, next);
      return;
    }
    const request = Object.setPrototypeOf(req, app.request) as Request;
    const response = Object.setPrototypeOf(res, app.response) as Response;
    request.res = response;
    response.req = request;
    request.originalUrl = url;
    request.baseUrl = '';
    const requestId = begin(request, response, path);
    runWithRequestId(requestId, () => {
      try {
        runFound(request, response, path, found);
      } catch (err) {
        handleError(err, request, response, () => undefined);
      }
    });
  };
  return app;
}

/** The JSON body parser of the stack, except for routes that declare a raw body and read it themselves. */
function jsonBodyUnlessRaw(bindings: RouteBinding[], json: RequestHandler): RequestHandler {
  const rawBody = new Set(
    bindings.filter((r) => r.contract.bodyType === 'raw').map((r) => `${r.contract.method.toUpperCase()} ${r.contract.path}`),
  );
  return (req, res, next) => (rawBody.has(`${req.method} ${req.path.replace(/(.)\/$/, '$1')}`) ? next() : json(req, res, next));
}
