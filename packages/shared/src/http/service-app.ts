import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { accessLogger } from '../logging/logger';
import type { Metrics } from '../metrics/registry';
import { currentTraceId } from '../tracing';
import { ASSERTION_HEADER, type AssertionVerifier, type Identity } from '../auth/assertion';
import { errorHandler, notFoundHandler, sendProblem } from './error-handler';
import type { ErrorStatuses } from './error-statuses';
import { problems } from './problem';
import { acceptRequestId, runWithRequestId } from '../context/request-context';
import type { IdempotencyStore } from './idempotency';
import { mountInternalRoutes, type InternalBinding } from './internal-routes';
import { isNotModified } from './conditional-get';
import { ContractPipeline } from './pipeline';
import { readinessStatusCode, readinessView, type ReadinessChecks } from './readiness';
import type { RouteBinding } from './routes';

export interface ServiceAppOptions {
  log: Logger;
  verifyAssertion: AssertionVerifier;
  routes: RouteBinding[];
  /** `/internal/*` routes for other services; only callers with a service assertion reach them */
  internal?: InternalBinding[];
  /** JSON body limit */
  jsonLimit?: string;
  validateResponses: boolean;
  idempotency?: IdempotencyStore;
  /** what `/readyz` reads: this process's own conditions and its backing services (ADR 0070) */
  readiness: () => Promise<ReadinessChecks>;
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

/** The route label of a request no contract route took. */
const OWN_ROUTES: Record<string, string> = { '/healthz': 'healthz', '/readyz': 'readyz', '/metrics': 'metrics' };

/**
 * What every request gets first: its request id (kept from the caller when it looks like one),
 * `res.locals` and the access line when the answer is finished.
 */

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
 * Characters that make Express read a URL with Node's URL parser instead of cutting it at `?`
 * (parseurl's fast path): such a URL is routed by the path that parser gives, as Express routed it.
 */
const PARSED_URL = /[\t\n\f\r #\u00a0\ufeff]/;

/**
 * The Express app every service runs: request ids, identity assertion, validated routes, problem
 * errors.
 *
 * A request for a contract route goes through the one pipeline (`ContractPipeline`, ADR 0044),
 * taken before Express's stack: the app's `handle` gives it Express's request and response
 * (prototypes and links, as Express does) without the router's walk over its layers, which cost a
 * tenth of catalog's CPU on a cached read (ADR 0025). The stack below serves what is not a contract
 * route: health, `/metrics`, `/internal/*` and 404s.
 */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // `req.fresh` answers by the pipeline's rule, for handlers that write their own answer
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request) {
      return isNotModified(this, this.res!);
    },
  });
  const jsonLimit = opts.jsonLimit ?? '100kb';
  const json = express.json({ limit: jsonLimit });
  const begin = requestBookkeeping(opts.log, opts.metrics);
  const handleError = errorHandler(opts.log, opts.errorStatuses);
  const pipeline = new ContractPipeline(opts.routes, {
    validateResponses: opts.validateResponses,
    idempotency: opts.idempotency,
    jsonLimit,
    verifyAssertion: opts.verifyAssertion,
    json,
    handleError,
  });

  app.use((req, res, next) => {
    const requestId = begin(req, res, req.path);
    runWithRequestId(requestId, next);
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const view = readinessView(await opts.readiness());
    res.status(readinessStatusCode(view)).json(view);
  });
  const metrics = opts.metrics;
  if (metrics) {
    app.get('/metrics', async (_req, res) => {
      const { contentType, body } = await metrics.exposition();
      res.type(contentType).send(body);
    });
  }

  app.use((req, res, next) => {
    const accept = (identity: Identity | null) => {
      if (!identity) {
        sendProblem(res, problems.unauthenticated('requests must come through the gateway'), req.path);
        return;
      }
      res.locals.identity = identity;
      next();
    };
    const identity = opts.verifyAssertion(req.header(ASSERTION_HEADER), req.method, req.path);
    if (identity instanceof Promise) identity.then(accept, next);
    else accept(identity);
  });
  app.use(json);

  if (opts.internal) {
    const internal = express.Router();
    internal.use((_req, res, next) => {
      if ((res.locals.identity as Identity).kind !== 'service') throw problems.notFound();
      next();
    });
    mountInternalRoutes(internal, opts.internal, { validateResponses: opts.validateResponses });
    app.use('/internal', internal);
  }

  app.use(notFoundHandler);
  app.use(handleError);

  const dispatch = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void };
  const expressHandle = dispatch.handle;
  dispatch.handle = function handle(this: unknown, req, res, next) {
    const url = req.url ?? '/';
    let path: string;
    if (url.charCodeAt(0) === 47 /* / */ && !PARSED_URL.test(url)) {
      const mark = url.indexOf('?');
      path = mark === -1 ? url : url.slice(0, mark);
    } else {
      path = (Object.setPrototypeOf(req, app.request) as Request).path;
    }
    const found = pipeline.match(req.method ?? '', path);
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
    runWithRequestId(requestId, () => pipeline.run(request, response, path, found));
  };
  return app;
}
