import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ADMIN_ROLES, ROLE_PERMISSIONS, type AdminPermission, type AdminRole, type AnyRoute, type ErrorStatus, z } from '@market/contracts';

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string().openapi({ example: 'VALIDATION_FAILED' }),
    detail: z.string(),
    instance: z.string(),
    request_id: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    limit: z
      .object({ name: z.string(), value: z.number().int() })
      .optional()
      .openapi({ description: 'the configured limit a refusal hit: its system configuration key and value' }),
  })
  .openapi('Problem', { description: 'RFC 9457 problem details; `code` is stable and machine-readable' });

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400:
    'VALIDATION_FAILED or MALFORMED_JSON: the input fails its schema (unknown fields are rejected); ' +
    'MALFORMED_REQUEST_TARGET: the request target holds a character that must be percent-encoded (a control, ' +
    'a space, `#`, `\\` or anything outside ASCII), refused by the gateway before any route',
  401: 'UNAUTHENTICATED, TOKEN_EXPIRED or TOKEN_REVOKED',
  403: 'FORBIDDEN, USER_FROZEN or REALNAME_REQUIRED',
  404: 'NOT_FOUND: absent, or not visible to the caller',
  409: 'INVALID_STATE, LISTING_UNAVAILABLE, INSUFFICIENT_BALANCE, IDEMPOTENCY_KEY_REUSED or CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'well-formed but refused (UPLOADER_NOT_MATCHED, SMS_CODE_INVALID, CAPTCHA_INVALID, PAYGATE_REJECTED)',
  429: 'RATE_LIMITED, with Retry-After',
  502: 'UPSTREAM_UNAVAILABLE',
  503: 'UPSTREAM_UNAVAILABLE',
};

/**
 * The statuses any route answers by what it declares, whatever its handler does: the gateway and
 * the kit answer them before (or around) the use case, so they are derived here in one place
 * rather than listed in every contract, and a new route cannot ship without them.
 */
export function edgeStatuses(route: AnyRoute): ErrorStatus[] {
  const statuses: ErrorStatus[] = [];
  // input the kit validates (path, query, headers, body); a body can come with any request, a GET's
  // too, and is parsed whether the route declares one or not (MALFORMED_JSON)
  statuses.push(400);
  // a token the gateway reads: missing or invalid (401), or of a frozen user or a disabled admin (403)
  if (route.auth !== 'public' || route.token === 'optional') statuses.push(401, 403);
  // the gateway measures every body against the route's limit, and the kit parses one only in a
  // supported encoding and charset (raw routes read their bytes themselves)
  statuses.push(413);
  if (route.bodyType !== 'raw') statuses.push(415);
  // every route has the gateway's per-process flood limit; a dependency down or an upstream answer
  // off its contract is UPSTREAM_UNAVAILABLE (ADR 0012)
  statuses.push(429, 502, 503);
  return statuses;
}

/** Every error status a route can answer: its own, then those its declared properties imply. */
export function errorStatuses(route: AnyRoute): ErrorStatus[] {
  return [...new Set<ErrorStatus>([...route.errors, ...edgeStatuses(route)])].sort((a, b) => a - b);
}

function successContent(route: AnyRoute) {
  if (route.stream) return { [String(route.success.contentType ?? 'text/event-stream')]: { schema: { type: 'string' as const } } };
  if (route.success.schema) return { 'application/json': { schema: route.success.schema } };
  if (route.success.contentType) {
    const types = typeof route.success.contentType === 'string' ? [route.success.contentType] : route.success.contentType;
    return Object.fromEntries(types.map((type) => [type, { schema: { type: 'string' as const, format: 'binary' } }]));
  }
  return undefined;
}

/** An optional token is OpenAPI's "no requirement, or this one"; an ignored one is no requirement. */
function securityOf(route: AnyRoute): RouteConfig['security'] {
  if (route.auth === 'user') return [{ userBearer: [] }];
  if (route.auth === 'admin') return [{ adminBearer: [] }];
  return route.token === 'optional' ? [{}, { userBearer: [] }] : [];
}

/** The permission an admin route needs, stated in its description and as `x-permission` (ADR 0033). */
function permissionLine(route: AnyRoute): string | undefined {
  if (route.auth !== 'admin' || !route.permission) return undefined;
  return route.permission === 'own_account'
    ? 'Permission: any signed-in admin, on their own account.'
    : `Permission: \`${route.permission}\` (roles: ${rolesGranting(route.permission).join(', ')}).`;
}

function rolesGranting(permission: AdminPermission): AdminRole[] {
  return ADMIN_ROLES.filter((role) => ROLE_PERMISSIONS[role].includes(permission));
}

function toRouteConfig(route: AnyRoute): RouteConfig {
  const responses: RouteConfig['responses'] = {
    [route.success.status]: { description: route.success.description, content: successContent(route) },
  };
  if (route.conditional) {
    responses[304] = { description: 'Not Modified: the `If-None-Match` entity tag is current; no body' };
  }
  for (const status of errorStatuses(route)) {
    responses[status] = {
      description: ERROR_DESCRIPTIONS[status],
      content: { 'application/problem+json': { schema: ProblemSchema } },
    };
  }
  const bodyType = route.bodyType === 'multipart' ? 'multipart/form-data' : 'application/json';
  const permission = permissionLine(route);
  return {
    ...(route.permission ? { 'x-permission': route.permission } : {}),
    method: route.method,
    path: route.path,
    operationId: route.id,
    summary: route.summary,
    description: permission ? [route.description, permission].filter(Boolean).join('\n\n') : route.description,
    tags: route.tags,
    security: securityOf(route),
    request: {
      params: route.params,
      query: route.query,
      headers: route.headers,
      body: route.body ? { required: true, content: { [bodyType]: { schema: route.body } } } : undefined,
    },
    responses,
  };
}

/** The public OpenAPI 3.1 document, built from the same route contracts the services validate with. */
export function buildOpenApiDocument(
  routes: AnyRoute[],
  extra: RouteConfig[] = [],
  schemas: Record<string, z.ZodType> = {},
) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'userBearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'access token from /api/auth/sms/login or /api/auth/refresh',
  });
  registry.registerComponent('securitySchemes', 'adminBearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'back-office access token from /api/admin/auth/login',
  });
  registry.register('Problem', ProblemSchema);
  for (const [name, schema] of Object.entries(schemas)) registry.register(name, schema);
  for (const route of routes) registry.registerPath(toRouteConfig(route));
  for (const config of extra) registry.registerPath(config);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Account Rental Marketplace API',
      version: '1.0.0',
      description:
        'Money is integer fen; times are ISO 8601 UTC; errors are RFC 9457 problem+json with a stable `code`; ' +
        'lists take `limit` (1..100, default 20) and an opaque `cursor` and answer `{ items, next_cursor }`.',
    },
    servers: [{ url: '/' }],
  });
}
