import { v7 as uuidv7 } from 'uuid';
import { ADMIN_PERMISSIONS, type AdminPermission, type AnyRoute, type RouteResult } from '@market/contracts';
import { ASSERTION_HEADER, type AdminIdentity, type Identity, type UserIdentity } from '@market/shared/auth';
import { errorStatuses, ProblemSchema } from '@market/shared/openapi';
import { assertionFor } from '@market/shared/testing';
import { readBody } from '../read-body';

/** An answer that breaks the route's contract: a status it does not declare, or a body off its schema. */
export class ContractBreach extends Error {
  constructor(route: AnyRoute, status: number, reason: string, body: unknown) {
    super(`${route.id} (${route.method.toUpperCase()} ${route.path}) answered ${status}: ${reason}\n${JSON.stringify(body)?.slice(0, 1000)}`);
    this.name = 'ContractBreach';
  }
}

/** The caller as the gateway would assert it after checking a token. */
export const asUser = (id: string = uuidv7(), sid: string = uuidv7()): UserIdentity => ({ kind: 'user', sub: id, sid, ip: '127.0.0.1' });
/** An admin holding `perms` (every permission unless told), as the gateway resolves them from the admin's roles. */
export const asAdmin = (id: string = uuidv7(), sid: string = uuidv7(), perms: readonly AdminPermission[] = ADMIN_PERMISSIONS): AdminIdentity => ({
  kind: 'admin',
  sub: id,
  sid,
  ip: '127.0.0.1',
  perms: [...perms],
});
export const anonymous: Identity = { kind: 'anonymous', ip: '127.0.0.1' };

export interface DirectCall {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  /** sent as JSON; a string goes out as it is, and so does a FormData (multipart, its boundary set by fetch) */
  body?: unknown;
  /** who the gateway would say is calling (default: an anonymous caller) */
  as?: Identity;
  headers?: Record<string, string>;
}

export interface DirectAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** the body as sent, for answers that are not text (a stored file) */
  bytes: Buffer;
}

function pathOf(route: AnyRoute, params: Record<string, string> = {}): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`${route.id} needs the path parameter ${name}`);
    return encodeURIComponent(params[name]!);
  });
}

/**
 * The gateway's side of a public route, without the gateway: the request goes to the service with
 * the identity assertion the gateway would sign, and the answer is held against the route's
 * contract — a success must hold against `success.schema`, any other status must be one the route
 * declares (its own errors and those its properties imply, as the OpenAPI document lists them) and
 * carry the problem shape with that status. A breach throws `ContractBreach`.
 */
export function directCaller(baseUrl: string) {
  async function call<C extends AnyRoute>(route: C, input: DirectCall = {}): Promise<DirectAnswer> {
    const query = input.query
      ? `?${new URLSearchParams(Object.entries(input.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`
      : '';
    const hasBody = input.body !== undefined || route.method === 'post' || route.method === 'put';
    const body = input.body === undefined ? (hasBody ? {} : undefined) : input.body;
    const multipart = body instanceof FormData;
    const path = pathOf(route, input.params);
    const method = route.method.toUpperCase();
    const response = await fetch(baseUrl + path + query, {
      method,
      headers: {
        [ASSERTION_HEADER]: await assertionFor(input.as ?? anonymous, { service: route.service, method, path }),
        ...(hasBody && !multipart ? { 'content-type': 'application/json' } : {}),
        ...input.headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' || multipart ? body : JSON.stringify(body),
    });
    const bytes = Buffer.from(await response.clone().arrayBuffer());
    const parsed = await readBody(response);
    check(route, response.status, parsed);
    return { status: response.status, headers: response.headers, body: parsed, bytes };
  }

  /** `call`, expecting the route's success; answers with its typed body. */
  async function ok<C extends AnyRoute>(route: C, input: DirectCall = {}): Promise<RouteResult<C>> {
    const answer = await call(route, input);
    if (answer.status !== route.success.status) throw new Error(`${route.id} answered ${answer.status}, not ${route.success.status}: ${JSON.stringify(answer.body)}`);
    return answer.body as RouteResult<C>;
  }

  return { call, ok };
}

function check(route: AnyRoute, status: number, body: unknown) {
  if (status === route.success.status) {
    if (!route.success.schema) return;
    const result = route.success.schema.safeParse(body);
    if (!result.success) throw new ContractBreach(route, status, `off the success schema: ${result.error.message}`, body);
    return;
  }
  if (status === 304 && route.conditional) return;
  if (!(errorStatuses(route) as number[]).includes(status)) throw new ContractBreach(route, status, 'a status the route does not declare', body);
  const problem = ProblemSchema.strict().safeParse(body);
  if (!problem.success) throw new ContractBreach(route, status, `not a problem: ${problem.error.message}`, body);
  if (problem.data.status !== status) throw new ContractBreach(route, status, `the problem says status ${problem.data.status}`, body);
}
