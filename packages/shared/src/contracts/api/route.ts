import type { z } from '../zod';

export type ServiceName = 'identity' | 'catalog' | 'orders' | 'wallet' | 'files' | 'notify' | 'admin';

/**
 * Who may call a route, as the gateway enforces it:
 * - `public`: anyone; a bearer user token is still verified and forwarded when present
 * - `user`: a valid ordinary-user access token
 * - `admin`: a valid back-office access token
 */
export type RouteAuth = 'public' | 'user' | 'admin';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 501 | 502 | 503;

type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface RouteContract<
  P extends AnyObject | undefined = AnyObject | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
  A extends RouteAuth = RouteAuth,
> {
  /** operationId in the OpenAPI document; unique across the system */
  id: string;
  service: ServiceName;
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI-style path, e.g. `/api/listings/{id}` */
  path: string;
  auth: A;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** `json` unless the route takes multipart (file upload) */
  bodyType?: 'json' | 'multipart';
  /**
   * The handler gets the exact request bytes as `rawBody` and validates `body` itself, after
   * checking them (a signed callback is verified over the bytes before any schema check).
   */
  rawBody?: boolean;
  /** request headers worth documenting (Idempotency-Key, X-Upload-Token, Paygate-Signature) */
  headers?: AnyObject;
  success: {
    status: 200 | 201 | 204 | 304;
    description: string;
    schema?: R;
    /** for routes that answer with bytes rather than JSON (file reads, the default screenshot) */
    contentType?: string;
  };
  errors: ErrorStatus[];
}

export function defineRoute<
  P extends AnyObject | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
  A extends RouteAuth = RouteAuth,
>(route: RouteContract<P, Q, B, R, A>): RouteContract<P, Q, B, R, A> {
  return route;
}

export type AnyRoute = RouteContract<any, any, any, any, any>;

type InferOr<T, Fallback> = T extends z.ZodType ? z.infer<T> : Fallback;
export type RouteParams<C> = C extends RouteContract<infer P, any, any, any, any> ? InferOr<P, Record<string, never>> : never;
export type RouteQuery<C> = C extends RouteContract<any, infer Q, any, any, any> ? InferOr<Q, Record<string, never>> : never;
export type RouteBody<C> = C extends RouteContract<any, any, infer B, any, any> ? InferOr<B, undefined> : never;
export type RouteResult<C> = C extends RouteContract<any, any, any, infer R, any> ? InferOr<R, void> : never;
export type RouteAuthOf<C> = C extends RouteContract<any, any, any, any, infer A> ? A : never;
