import type { RoutePermission } from '../permissions';
import type { ServiceName } from '../services';
import type { z } from '../zod';
import { splitEndpoint } from './endpoint';

export type { ServiceName } from '../services';

/**
 * Who may call a route, as the gateway enforces it:
 * - `public`: anyone; what a token sent along means is the route's `token` policy
 * - `user`: a valid ordinary-user access token
 * - `admin`: a valid back-office access token
 */
export type RouteAuth = 'public' | 'user' | 'admin';

/**
 * How a public route treats an `Authorization` header:
 * - `ignored`: never read, so a stale token a client still attaches (a mobile app refreshing
 *   with its expired access token, a back-office page logging in again) gets the public answer;
 *   for the auth entry points and anything whose answer no caller changes
 * - `optional`: a user token, when sent, must be valid (401 otherwise) and is forwarded; for
 *   public reads that show a signed-in caller more (an owner's own unpublished listing)
 */
export type PublicTokenPolicy = 'ignored' | 'optional';

/**
 * Edge policy of a route, read by the gateway (no route ids there):
 * - `rate`: a per-address limit counted across every gateway replica (Redis), on top of the
 *   per-process flood limit every route has; routes of one class share one budget
 * - `bodyLimit`: which configured body limit applies (default: the JSON limit; multipart routes
 *   take the upload limit)
 * - `recordsRefusals`: a body the gateway refuses for its size is reported to the service, which
 *   records every delivery (ADR 0013)
 * - `microCache`: a GET whose answer to an anonymous caller is the same for every anonymous caller;
 *   the gateway keeps such answers for a moment and answers repeats itself (ADR 0068)
 */
export interface EdgePolicy {
  rate?: 'sms' | 'login' | 'admin_login' | 'open_upload';
  bodyLimit?: 'open_upload';
  recordsRefusals?: boolean;
  microCache?: boolean;
}

export type RouteMethod = 'get' | 'post' | 'put' | 'delete';

/** A route's method and path in one string, as its builder takes them: `'get /api/orders/{id}'`. */
export type Endpoint = `${RouteMethod} /${string}`;

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 502 | 503;

type AnyObject = z.ZodObject<z.ZodRawShape>;
type OptionalObject = AnyObject | undefined;
type OptionalSchema = z.ZodType | undefined;

/** What a route states itself: all but its service, method, path and tags, which its builder (`routesOf`) fills. */
interface RouteDeclared<P extends OptionalObject, Q extends OptionalSchema, B extends OptionalSchema, R extends OptionalSchema, A extends RouteAuth> {
  /** operationId in the OpenAPI document; unique across the system */
  id: string;
  auth: A;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * `json` unless the route takes multipart (file upload) or `raw`: the service leaves the bytes
   * unread for the handler, which reads them itself (`rawBody()`, or the request stream) and
   * validates `body` itself (a signed callback is verified over the exact bytes before any schema
   * check; open upload records even a body that is not JSON). Raw routes have literal paths.
   */
  bodyType?: 'json' | 'multipart' | 'raw';
  /**
   * The handler answers with an open-ended stream it writes itself (Server-Sent Events): the
   * gateway forwards it as it comes, without its upstream timeout, and ends the upstream request
   * when the client goes away. `success.contentType` names the stream's media type.
   */
  stream?: boolean;
  /** answers with an `ETag` and 304 to a matching `If-None-Match` */
  conditional?: boolean;
  /** what the gateway enforces before the service sees the request (ADR 0009) */
  edge?: EdgePolicy;
  /** request headers worth documenting (Idempotency-Key, X-Upload-Token, Paygate-Signature, Last-Event-ID) */
  headers?: AnyObject;
  success: {
    status: 200 | 201 | 204 | 304;
    description: string;
    schema?: R;
    /** for routes that answer with bytes rather than JSON (file reads, the default screenshot): the media type, or each one it may be */
    contentType?: string | readonly string[];
  };
  errors: ErrorStatus[];
}

interface RoutePlace {
  service: ServiceName;
  method: RouteMethod;
  /** OpenAPI-style path, e.g. `/api/listings/{id}` */
  path: string;
  tags: string[];
}

type RouteFields<P extends OptionalObject, Q extends OptionalSchema, B extends OptionalSchema, R extends OptionalSchema, A extends RouteAuth> =
  RouteDeclared<P, Q, B, R, A> & RoutePlace;

type RouteAccess<A extends RouteAuth> =
  ([A] extends ['public'] ? { token: PublicTokenPolicy } : { token?: never })
  & ([A] extends ['admin'] ? { permission: RoutePermission } : { permission?: never });

/**
 * Every public route states its token policy; routes that need a token have none to state. Every
 * admin route states the permission it needs (ADR 0033): leaving it out fails the type check, so a
 * new back-office route cannot open to every admin by omission.
 */
export type RouteContract<
  P extends OptionalObject = OptionalObject,
  Q extends OptionalSchema = OptionalSchema,
  B extends OptionalSchema = OptionalSchema,
  R extends OptionalSchema = OptionalSchema,
  A extends RouteAuth = RouteAuth,
> = RouteFields<P, Q, B, R, A> & RouteAccess<A>;

export function defineRoute<P extends OptionalObject = undefined, Q extends OptionalSchema = undefined, B extends OptionalSchema = undefined, R extends OptionalSchema = undefined, A extends RouteAuth = RouteAuth>(
  route: RouteContract<P, Q, B, R, A>,
): RouteContract<P, Q, B, R, A> {
  return route;
}

/**
 * The builder of one group of a service's routes: the group's service and tags are stated once,
 * here, and each route gives its method and path as one string. `route('get /api/orders/{id}',
 * { id: 'getOrder', auth: 'user', … })` is the `RouteContract` `defineRoute` makes of the same
 * fields with `service`, `method`, `path` and `tags` filled in, under the same token and
 * permission rules.
 */
export function routesOf(service: ServiceName, group: { tags: string[] }) {
  return <P extends OptionalObject = undefined, Q extends OptionalSchema = undefined, B extends OptionalSchema = undefined, R extends OptionalSchema = undefined, A extends RouteAuth = RouteAuth>(
    endpoint: Endpoint,
    declaration: RouteDeclared<P, Q, B, R, A> & RouteAccess<A>,
  ): RouteContract<P, Q, B, R, A> => ({ ...declaration, ...splitEndpoint(endpoint), service, tags: group.tags });
}

export type AnyRoute = RouteFields<any, any, any, any, any> & { token?: PublicTokenPolicy; permission?: RoutePermission };

type InferOr<T, Fallback> = T extends z.ZodType ? z.infer<T> : Fallback;
export type RouteParams<C> = C extends RouteFields<infer P, any, any, any, any> ? InferOr<P, Record<string, never>> : never;
export type RouteQuery<C> = C extends RouteFields<any, infer Q, any, any, any> ? InferOr<Q, Record<string, never>> : never;
export type RouteBody<C> = C extends RouteFields<any, any, infer B, any, any> ? InferOr<B, undefined> : never;
export type RouteResult<C> = C extends RouteFields<any, any, any, infer R, any> ? InferOr<R, void> : never;
export type RouteAuthOf<C> = C extends RouteFields<any, any, any, any, infer A> ? A : never;
