import { ASSERTION_HEADER } from '../auth/assertion';
import { currentRequestId } from './request-context';
import { Problem, problems } from './problem';

/**
 * Service-to-service calls on `/internal/*`: signed as the calling service, carrying the request
 * id, with a timeout. A downstream problem is passed through; an unreachable service is a 503.
 */
export class InternalClient {
  constructor(
    private readonly baseUrl: string,
    private readonly assertion: () => string,
    private readonly timeoutMs = 5000,
  ) {}

  async request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    let response: globalThis.Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        headers: {
          [ASSERTION_HEADER]: this.assertion(),
          'content-type': 'application/json',
          ...(currentRequestId() ? { 'x-request-id': currentRequestId()! } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw problems.upstreamUnavailable(503);
    }
    const text = await response.text();
    const payload = text ? JSON.parse(text) : undefined;
    if (!response.ok) {
      if (payload?.code && response.status < 500) {
        throw new Problem(response.status, payload.code, payload.detail, { errors: payload.errors });
      }
      throw problems.upstreamUnavailable(503);
    }
    return payload as T;
  }

  get<T>(path: string) {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body: unknown) {
    return this.request<T>('POST', path, body);
  }
}
