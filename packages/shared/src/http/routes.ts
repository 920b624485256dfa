import getRawBody from 'raw-body';
import type { Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import type { AdminIdentity, Identity, UserIdentity } from '../auth/assertion';
import type {
  AnyRoute,
  RouteAuthOf,
  RouteBody,
  RouteParams,
  RouteQuery,
  RouteResult,
} from '@market/contracts';
import { IDEMPOTENCY_HEADER, requestFingerprint, type IdempotencyStore, type StoredResponse } from './idempotency';
import { problems } from './problem';
import { matchesEtag, PreparedJson } from './read-cache';
import { clientInputErrors, parseOrThrow } from './validate';

type IdentityFor<A> = A extends 'user' ? UserIdentity : A extends 'admin' ? AdminIdentity : Identity;

export interface HandlerInput<C extends AnyRoute> {
  params: RouteParams<C>;
  query: RouteQuery<C>;
  body: RouteBody<C>;
  identity: IdentityFor<RouteAuthOf<C>>;
  req: Request;
  res: Response;
  log: Logger;
  /** reads the request bytes, up to the JSON body limit (routes with `bodyType: 'raw'`, whose `body` the kit leaves unread) */
  rawBody: () => Promise<Buffer>;
}

/** A use-case call: returns the success body (or it prepared, from a cache), or writes `res` itself (file streams) and returns nothing. */
export type RouteHandler<C extends AnyRoute> = (input: HandlerInput<C>) => Promise<RouteResult<C> | PreparedJson<RouteResult<C>> | void>;

export interface RouteBinding {
  contract: AnyRoute;
  handler: RouteHandler<any>;
}

export function route<C extends AnyRoute>(contract: C, handler: RouteHandler<C>): RouteBinding {
  return { contract, handler };
}

export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

function assertCaller(auth: AnyRoute['auth'], identity: Identity) {
  if (auth === 'user' && identity.kind !== 'user') throw problems.unauthenticated('a user token is required');
  if (auth === 'admin' && identity.kind !== 'admin') throw problems.unauthenticated('an admin token is required');
}

export interface MountOptions {
  /** check every success body against its schema: on in development and tests, where drift must surface */
  validateResponses: boolean;
  /** for routes whose contract declares the `Idempotency-Key` header */
  idempotency?: IdempotencyStore;
  /** the most a raw body may hold (the JSON body limit) */
  jsonLimit: string;
}

function callerScope(identity: Identity): string {
  return identity.kind === 'anonymous' ? `anonymous:${identity.ip ?? ''}` : `${identity.kind}:${identity.sub}`;
}

export function declaresIdempotency(contract: AnyRoute): boolean {
  return Boolean(contract.headers?.shape[IDEMPOTENCY_HEADER]);
}

/**
 * A prepared body goes out as it was serialized, with its entity tag; a client that already holds
 * it gets 304. `no-cache`: a client may keep the body but must ask again before using it.
 */
function sendPrepared(req: Request, res: Response, status: number, body: PreparedJson<unknown>) {
  res.setHeader('ETag', body.etag);
  res.setHeader('Cache-Control', 'no-cache');
  res.status(status);
  if (matchesEtag(req.headers['if-none-match'], body.etag)) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.bytes);
  res.end(body.json);
}

export function mountRoutes(router: Router, bindings: RouteBinding[], opts: MountOptions) {
  // A prepared body is checked against its schema the first time it is sent, not every time.
  const checked = new WeakSet<PreparedJson<unknown>>();
  for (const { contract, handler } of bindings) {
    router[contract.method](expressPath(contract.path), async (req: Request, res: Response) => {
      const identity = res.locals.identity as Identity;
      assertCaller(contract.auth, identity);
      const refused = [
        ...clientInputErrors(req.params, ['path']),
        ...clientInputErrors(req.query, ['query']),
        ...clientInputErrors(req.body),
      ];
      if (refused.length > 0) throw problems.validation(refused);
      const params = contract.params ? parseOrThrow(contract.params, req.params, 'path') : {};
      const query = contract.query ? parseOrThrow(contract.query, req.query, 'query') : {};
      const body = contract.body && (contract.bodyType ?? 'json') === 'json' ? parseOrThrow(contract.body, req.body ?? {}) : undefined;
      if (contract.headers) parseOrThrow(contract.headers, req.headers, 'headers');
      const run = async (): Promise<StoredResponse | null> => {
        const rawBody = () => getRawBody(req, { limit: opts.jsonLimit });
        const result = await handler({ params, query, body, identity, req, res, log: res.locals.log, rawBody } as HandlerInput<AnyRoute>);
        if (res.headersSent) return null;
        const { status, schema } = contract.success;
        if (status === 204 || schema === undefined) return { status, body: undefined };
        const value = result instanceof PreparedJson ? result.value : result;
        if (opts.validateResponses && !(result instanceof PreparedJson && checked.has(result))) {
          const check = schema.safeParse(value);
          if (!check.success) {
            res.locals.log.error({ route: contract.id, issues: check.error.issues }, 'response does not match its contract');
            throw new Error(`response of ${contract.id} does not match its contract`);
          }
          if (result instanceof PreparedJson) checked.add(result);
        }
        return { status, body: result as unknown };
      };

      const key = req.header(IDEMPOTENCY_HEADER);
      let response: StoredResponse | null;
      if (key !== undefined && opts.idempotency && declaresIdempotency(contract)) {
        const scope = `${callerScope(identity)}:${contract.id}`;
        const once = await opts.idempotency.once(scope, key, requestFingerprint({ params, query, body }), run);
        if (once.replayed) res.setHeader('idempotent-replayed', 'true');
        response = once.response;
      } else {
        response = await run();
      }
      if (!response) return;
      if (response.body === undefined) res.status(response.status).end();
      else if (response.body instanceof PreparedJson) sendPrepared(req, res, response.status, response.body);
      else res.status(response.status).json(response.body);
    });
  }
}
