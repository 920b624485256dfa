import type { FieldError, ProblemLimit } from '../errors';

export type { FieldError } from '../errors';

/** RFC 9457 problem details: every error a client sees is one of these, with a stable `code`. */

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable request',
  429: 'Too many requests',
  500: 'Internal error',
  501: 'Not implemented',
  502: 'Upstream unavailable',
  503: 'Service unavailable',
};

export class Problem extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  readonly limit?: ProblemLimit;

  constructor(
    status: number,
    code: string,
    detail?: string,
    opts: { title?: string; errors?: FieldError[]; headers?: Record<string, string>; limit?: ProblemLimit } = {},
  ) {
    super(detail ?? TITLES[status] ?? code);
    this.status = status;
    this.code = code;
    this.title = opts.title ?? TITLES[status] ?? 'Error';
    this.errors = opts.errors;
    this.headers = opts.headers;
    this.limit = opts.limit;
  }

  toBody(instance: string, requestId?: string): ProblemBody {
    return {
      type: `https://errors.market.example/${this.code.toLowerCase().replace(/_/g, '-')}`,
      title: this.title,
      status: this.status,
      code: this.code,
      detail: this.message,
      instance,
      ...(requestId ? { request_id: requestId } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.limit ? { limit: this.limit } : {}),
    };
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  instance: string;
  request_id?: string;
  errors?: FieldError[];
  limit?: ProblemLimit;
}

export const problems = {
  validation: (errors: FieldError[], detail = 'request failed validation') =>
    new Problem(400, 'VALIDATION_FAILED', detail, { errors }),
  /** a client error nothing more is said about (another library's 4xx; a path parameter that does not decode) */
  badRequest: (status = 400) => new Problem(status, 'BAD_REQUEST', 'the request could not be processed'),
  malformedJson: () => new Problem(400, 'MALFORMED_JSON', 'request body is not valid JSON'),
  unauthenticated: (detail = 'authentication required') => new Problem(401, 'UNAUTHENTICATED', detail),
  tokenExpired: () => new Problem(401, 'TOKEN_EXPIRED', 'token has expired'),
  tokenRevoked: () => new Problem(401, 'TOKEN_REVOKED', 'token has been revoked'),
  forbidden: (detail = 'not allowed') => new Problem(403, 'FORBIDDEN', detail),
  userFrozen: () => new Problem(403, 'USER_FROZEN', 'this account is frozen'),
  notFound: (detail = 'resource not found') => new Problem(404, 'NOT_FOUND', detail),
  invalidState: (detail: string) => new Problem(409, 'INVALID_STATE', detail),
  conflict: (detail: string, code = 'CONFLICT') => new Problem(409, code, detail),
  payloadTooLarge: (detail = 'request body is too large') => new Problem(413, 'PAYLOAD_TOO_LARGE', detail),
  unsupportedMediaType: (detail: string) => new Problem(415, 'UNSUPPORTED_MEDIA_TYPE', detail),
  unprocessable: (code: string, detail: string) => new Problem(422, code, detail),
  rateLimited: (retryAfterSeconds: number) =>
    new Problem(429, 'RATE_LIMITED', 'too many requests; slow down', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    }),
  upstreamUnavailable: (status: 502 | 503 = 502) =>
    new Problem(status, 'UPSTREAM_UNAVAILABLE', 'a backing service is unavailable; try again shortly'),
};
