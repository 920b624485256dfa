import getRawBody from 'raw-body';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { adminHolds, type AdminIdentity, type Identity, type UserIdentity } from '../auth/assertion';
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
import { isNotModified } from './conditional-get';
import { PreparedJson } from './read-cache';
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

/**
 * The route's caller check. An admin route checks the permission its contract names again here,
 * not only at the gateway: an admin assertion made for one route carries the admin's
 * permissions, so a replayed or forged one cannot open a route the admin's roles do not grant.
 */
function assertCaller(contract: AnyRoute, identity: Identity) {
  if (contract.auth === 'user' && identity.kind !== 'user') throw problems.unauthenticated('a user token is required');
  if (contract.auth === 'admin') {
    if (identity.kind !== 'admin') throw problems.unauthenticated('an admin token is required');
    if (!adminHolds(identity, contract.permission)) {
      throw problems.forbidden(`this needs the permission ${contract.permission ?? '(none declared)'}, which your roles do not grant`);
    }
  }
}

export interface RouteStepsOptions {
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
  res.statusCode = status;
  if (isNotModified(req, res)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.bytes);
  res.end(body.body);
}

/** A handler's input: `log` and `rawBody` are made only if the handler reads them. */
class Input {
  constructor(
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly identity: Identity,
    readonly req: Request,
    readonly res: Response,
    private readonly rawBodyLimit: string,
  ) {}

  get log(): Logger {
    return this.res.locals.log as Logger;
  }

  get rawBody(): () => Promise<Buffer> {
    return () => getRawBody(this.req, { limit: this.rawBodyLimit });
  }
}

/** At most this many distinct query strings are remembered per route; then it starts over. */
const PARSED_QUERIES_PER_ROUTE = 500;

/** Whether `value` is plain data (primitives, plain objects and arrays), and frozen deeply if so. */
function freezePlainData(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function';
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
  for (const child of Object.values(value)) if (!freezePlainData(child)) return false;
  Object.freeze(value);
  return true;
}

/**
 * Validated queries by their raw query string. Parsing the same query string gives the same
 * answer, and public reads repeat theirs (the first page, a popular search): the NUL and depth
 * check and the schema's parse run once per distinct string, not once per request. Only a parse
 * that succeeded and gave plain data is kept, frozen, so no handler can change what the next
 * request gets; a refused query is checked (and refused) again each time.
 */
class ParsedQueries {
  private entries = new Map<string, unknown>();

  get(raw: string): unknown {
    return this.entries.get(raw);
  }

  remember(raw: string, query: unknown) {
    if (!freezePlainData(query)) return;
    if (this.entries.size >= PARSED_QUERIES_PER_ROUTE) this.entries = new Map();
    this.entries.set(raw, query);
  }
}

/** The raw query string of a request (`''` for none), or null when it cannot serve as a cache key. */
function rawQueryOf(req: Request): string | null {
  const url = req.url;
  if (url.includes('#')) return null;
  const mark = url.indexOf('?');
  return mark === -1 ? '' : url.slice(mark + 1);
}

/**
 * A contract route's own steps of the pipeline (ADR 0044), once the request is its and its body
 * read: the caller check, validation of path, query, body and headers, idempotency, the handler,
 * and the answer.
 */
export type ContractRouteSteps = (req: Request, res: Response, params: Record<string, string>) => Promise<void>;

export function contractRouteSteps(binding: RouteBinding, opts: RouteStepsOptions, checked: WeakSet<PreparedJson<unknown>>): ContractRouteSteps {
  const { contract, handler } = binding;
  const idempotent = opts.idempotency !== undefined && declaresIdempotency(contract);
  const parsedQueries = new ParsedQueries();
  const jsonBody = contract.body !== undefined && (contract.bodyType ?? 'json') === 'json';
  const { status: successStatus, schema: successSchema } = contract.success;

  return async (req, res, rawParams) => {
    const identity = res.locals.identity as Identity;
    assertCaller(contract, identity);
    const rawQuery = rawQueryOf(req);
    const known = rawQuery === null ? undefined : parsedQueries.get(rawQuery);
    const queryInput = known === undefined ? req.query : undefined;
    const refused = [
      ...clientInputErrors(rawParams, ['path']),
      ...(known === undefined ? clientInputErrors(queryInput, ['query']) : []),
      ...clientInputErrors(req.body),
    ];
    if (refused.length > 0) throw problems.validation(refused);
    const params = contract.params ? parseOrThrow(contract.params, rawParams, 'path') : {};
    let query = known;
    if (query === undefined) {
      query = contract.query ? parseOrThrow(contract.query, queryInput, 'query') : {};
      if (rawQuery !== null) parsedQueries.remember(rawQuery, query);
    }
    const body = jsonBody ? parseOrThrow(contract.body!, req.body ?? {}) : undefined;
    if (contract.headers) parseOrThrow(contract.headers, req.headers, 'headers');
    const run = async (): Promise<StoredResponse | null> => {
      const result = await handler(new Input(params, query, body, identity, req, res, opts.jsonLimit) as unknown as HandlerInput<AnyRoute>);
      if (res.headersSent) return null;
      if (successStatus === 204 || successSchema === undefined) return { status: successStatus, body: undefined };
      const value = result instanceof PreparedJson ? result.value : result;
      if (opts.validateResponses && !(result instanceof PreparedJson && checked.has(result))) {
        const check = successSchema.safeParse(value);
        if (!check.success) {
          (res.locals.log as Logger).error({ route: contract.id, issues: check.error.issues }, 'response does not match its contract');
          throw new Error(`response of ${contract.id} does not match its contract`);
        }
        if (result instanceof PreparedJson) checked.add(result);
      }
      return { status: successStatus, body: result as unknown };
    };

    const key = idempotent ? req.header(IDEMPOTENCY_HEADER) : undefined;
    let response: StoredResponse | null;
    if (key !== undefined) {
      const scope = `${callerScope(identity)}:${contract.id}`;
      const once = await opts.idempotency!.once(scope, key, requestFingerprint({ params, query, body }), run);
      if (once.replayed) res.setHeader('idempotent-replayed', 'true');
      response = once.response;
    } else {
      response = await run();
    }
    if (!response) return;
    if (response.body === undefined) res.status(response.status).end();
    else if (response.body instanceof PreparedJson) sendPrepared(req, res, response.status, response.body);
    else res.status(response.status).json(response.body);
  };
}
