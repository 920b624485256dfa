import type { components } from './generated/schema';

/** An RFC 9457 problem answered by the API, as a throwable error with its stable `code`. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly title: string;
  readonly type: string;
  readonly instance: string | undefined;
  readonly requestId: string | undefined;
  readonly errors: ReadonlyArray<{ path: string; message: string }>;

  constructor(status: number, body: Partial<ProblemBody>) {
    const code = body.code ?? (status >= 500 ? 'UPSTREAM_UNAVAILABLE' : 'HTTP_ERROR');
    const detail = body.detail ?? body.title ?? `HTTP ${status}`;
    super(`${code}: ${detail}`);
    this.name = 'ApiProblem';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.title = body.title ?? '';
    this.type = body.type ?? 'about:blank';
    this.instance = body.instance;
    this.requestId = body.request_id;
    this.errors = body.errors ?? [];
  }
}

/** A problem's body as the OpenAPI document declares it. */
export type ProblemBody = components['schemas']['Problem'];

/** The problem of a failed response; a body that is not a problem (a proxy's HTML page) still yields one with the status. */
export function problemFrom(response: Response, body: unknown): ApiProblem {
  const problem = typeof body === 'object' && body !== null ? (body as Partial<ProblemBody>) : {};
  return new ApiProblem(response.status, problem);
}
