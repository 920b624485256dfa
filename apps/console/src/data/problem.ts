import type { HttpError } from '@refinedev/core';
import { ApiProblem } from '@market/sdk';

/**
 * A refused or failed call as Refine carries it (an HttpError: `message`, `statusCode`, field
 * `errors` for forms), keeping the RFC 9457 problem's stable `code` and `detail` so screens and
 * notifications name the refusal exactly as the API does.
 */
export class ProblemError extends Error implements HttpError {
  readonly statusCode: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: Record<string, string>;
  [key: string]: unknown;

  constructor(readonly problem: ApiProblem) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = 'ProblemError';
    this.statusCode = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    // a form field's error sits at its path (`breakdown.consumption`); the first message per field
    this.errors = {};
    for (const e of problem.errors) this.errors[e.path] ??= e.message;
  }
}

/** Any failure of a call as a ProblemError: a network failure (no answer at all) is status 0, `NETWORK_ERROR`. */
export function toProblemError(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof ApiProblem) return new ProblemError(error);
  return new ProblemError(new ApiProblem(0, { code: 'NETWORK_ERROR', detail: error instanceof Error ? error.message : String(error) }));
}
