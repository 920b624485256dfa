import { DependencyFailed, DomainError } from '../errors';
import { Problem } from './problem';

/** A status, and a title when the status's own does not say it. */
type StatusAnswer = number | { status: number; title: string };

/**
 * How the HTTP edge answers a domain error's code: one answer, or an answer by the error where one
 * code stands for refusals answered differently (an unreachable neighbour 503, one off its contract 502).
 */
export type ErrorStatus = StatusAnswer | ((err: DomainError) => StatusAnswer);

/** A service's table from its domain error codes to what the HTTP edge answers (ADR 0041). */
export type ErrorStatuses = Readonly<Record<string, ErrorStatus>>;

/** The codes of the kit's own refusals (`@market/shared/errors`), which every service answers alike. */
export const KIT_ERROR_STATUSES = {
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  INVALID_STATE: 409,
  CONFLICT: 409,
  VALIDATION_FAILED: 400,
  RATE_LIMITED: 429,
  UPSTREAM_UNAVAILABLE: (err) => (err instanceof DependencyFailed && err.reason === 'bad_answer' ? 502 : 503),
} as const satisfies ErrorStatuses;

/**
 * A neighbour's refusal of an internal call, passed on as the neighbour answered it: the code is the
 * neighbour's, so the calling service's table cannot know it. Kind as any client would read the
 * status: a 4xx other than "not now" fails the same way on every try.
 */
export class RemoteRefusal extends DomainError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    errors?: Array<{ path: string; message: string }>,
  ) {
    super(code, message, status >= 400 && status < 500 && ![408, 409, 423, 425, 429].includes(status) ? 'permanent' : 'transient', { errors });
  }
}

/** The problem a domain error is answered with, or null when no table gives its code a status (a bug: 500). */
export function problemOfDomainError(err: DomainError, statuses: ErrorStatuses): Problem | null {
  const entry: ErrorStatus | undefined = err instanceof RemoteRefusal ? err.status : (statuses[err.code] ?? (KIT_ERROR_STATUSES as ErrorStatuses)[err.code]);
  if (entry === undefined) return null;
  const answer = typeof entry === 'function' ? entry(err) : entry;
  const { status, title } = typeof answer === 'number' ? { status: answer, title: undefined } : answer;
  const retryAfter = err.details.retryAfterSeconds;
  return new Problem(status, err.code, err.message, {
    title,
    errors: err.details.errors,
    limit: err.details.limit,
    headers: retryAfter === undefined ? undefined : { 'Retry-After': String(Math.max(1, Math.ceil(retryAfter))) },
  });
}
