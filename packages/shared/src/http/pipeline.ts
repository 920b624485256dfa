import type { IncomingMessage } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { RouteMatcher, type AnyRoute, type RouteMatch } from '@market/contracts';
import { ASSERTION_HEADER, type AssertionVerifier, type Identity } from '../auth/assertion';
import { sendProblem } from './error-handler';
import { problems } from './problem';
import type { PreparedJson } from './read-cache';
import { contractRouteSteps, type ContractRouteSteps, type RouteBinding, type RouteStepsOptions } from './routes';

export interface ContractRoute {
  method: string;
  path: string;
  contract: AnyRoute;
  steps: ContractRouteSteps;
}

export type FoundRoute = RouteMatch<ContractRoute>;

export interface PipelineOptions extends RouteStepsOptions {
  verifyAssertion: AssertionVerifier;
  /** the JSON body parser */
  json: RequestHandler;
  /** the last step, `errorHandler(log, statuses)` (ADR 0041) */
  handleError: ErrorRequestHandler;
}

/** Whether a request declares a body (type-is `hasBody`, as body-parser reads it). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

/**
 * The one request pipeline of a service's contract routes (ADR 0044). After the request id,
 * `res.locals` and the access line (the app's first step, shared with its other routes), a
 * request the matcher gives to a contract route goes through, in this order:
 *
 * 1. the identity assertion, made for this method and path (401 without a valid one; a
 *    service's own identity is taken on `/internal` routes only);
 * 2. its JSON body, unless the route reads its bytes itself (`bodyType: 'raw'`) or there is none;
 * 3. its path parameters, decoded (400 when one is not valid percent-encoding);
 * 4. the route's own steps: caller check, validation of path, query, body and headers,
 *    idempotency, the handler, the answer (a prepared body with its entity tag, 304 where
 *    `If-None-Match` holds it: `isNotModified`);
 * 5. whatever failed, answered as a problem by `errorHandler(log, statuses)`.
 *
 * The order is the one Express's middleware stack gave these routes before they left it, so each
 * answer is what it was. No route is mounted a second time on Express's router: a path the
 * matcher does not give to a contract route is not one.
 */
export class ContractPipeline {
  private readonly matcher: RouteMatcher<ContractRoute>;

  constructor(
    bindings: RouteBinding[],
    private readonly opts: PipelineOptions,
  ) {
    const checked = new WeakSet<PreparedJson<unknown>>();
    this.matcher = new RouteMatcher(
      bindings.map((binding) => ({
        method: binding.contract.method,
        path: binding.contract.path,
        contract: binding.contract,
        steps: contractRouteSteps(binding, opts, checked),
      })),
    );
  }

  match(method: string, path: string): FoundRoute | undefined {
    return this.matcher.match(method, path);
  }

  /** Steps 1 to 5 for a request `match` found, inside its request id's context. */
  run(req: Request, res: Response, path: string, found: FoundRoute) {
    const fail = (err: unknown) => this.opts.handleError(err, req, res, () => undefined);
    try {
      const identity = this.opts.verifyAssertion(req.headers[ASSERTION_HEADER] as string | undefined, req.method, path);
      if (identity instanceof Promise) identity.then((known) => this.proceed(req, res, path, found, known, fail), fail);
      else this.proceed(req, res, path, found, identity, fail);
    } catch (err) {
      fail(err);
    }
  }

  private proceed(req: Request, res: Response, path: string, found: FoundRoute, identity: Identity | null, fail: (err: unknown) => void) {
    try {
      if (!identity || identity.kind === 'service') {
        sendProblem(res, problems.unauthenticated('requests must come through the gateway'), path);
        return;
      }
      const { contract, steps } = found.route;
      res.locals.identity = identity;
      res.locals.routeId = contract.id;
      const handle = () => {
        if (found.params === null) {
          fail(problems.badRequest());
          return;
        }
        req.params = found.params;
        steps(req, res, found.params).catch(fail);
      };
      if (contract.bodyType === 'raw') handle();
      else if (!hasBody(req)) {
        if (!Reflect.has(req, 'body')) req.body = undefined;
        handle();
      } else {
        this.opts.json(req, res, (err?: unknown) => (err ? fail(err) : handle()));
      }
    } catch (err) {
      fail(err);
    }
  }
}
