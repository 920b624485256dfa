import { ASSERTION_HEADER } from '../auth/assertion';
import type { ServiceName, AnyInternalRoute, InternalInput, InternalResult } from '@market/contracts';
import { currentRequestId } from '../context/request-context';
import { DependencyFailed } from '../errors';
import { RemoteRefusal } from './error-statuses';
import { addressesOf, roundRobin } from '../config/addresses';

/**
 * Calls other services' `/internal/*` routes by their shared contracts: signed as the calling
 * service, carrying the request id, with a timeout. A downstream refusal is passed on as a
 * `RemoteRefusal`; an unreachable service or an answer off the contract is a `DependencyFailed`.
 */
export class InternalClient {
  private readonly next: Record<string, () => string>;

  /** `baseUrls`: each service's URL, or its replicas' URLs comma-separated, taken in turn */
  constructor(
    baseUrls: Record<ServiceName, string>,
    private readonly assertion: () => string,
    private readonly timeoutMs = 5000,
  ) {
    this.next = Object.fromEntries(Object.entries(baseUrls).map(([service, urls]) => [service, roundRobin(addressesOf(urls))]));
  }

  async call<C extends AnyInternalRoute>(contract: C, input: Partial<InternalInput<C>> = {}): Promise<InternalResult<C>> {
    const params = (input.params ?? {}) as Record<string, unknown>;
    const path = contract.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
    const query = input.query ? `?${new URLSearchParams(input.query as Record<string, string>).toString()}` : '';
    const payload = await this.send(contract, `/internal${path}${query}`, input.body);
    const parsed = contract.response.safeParse(payload);
    if (!parsed.success) throw new DependencyFailed('bad_answer');
    return parsed.data;
  }

  /** `call`, with "not found" as null instead of a 404 problem. */
  async find<C extends AnyInternalRoute>(contract: C, input: Partial<InternalInput<C>> = {}): Promise<InternalResult<C> | null> {
    try {
      return await this.call(contract, input);
    } catch (err) {
      if (err instanceof RemoteRefusal && err.status === 404) return null;
      throw err;
    }
  }

  private async send(contract: AnyInternalRoute, path: string, body: unknown): Promise<unknown> {
    let response: globalThis.Response;
    try {
      response = await fetch(this.next[contract.service]!() + path, {
        method: contract.method.toUpperCase(),
        headers: {
          [ASSERTION_HEADER]: this.assertion(),
          'content-type': 'application/json',
          ...(currentRequestId() ? { 'x-request-id': currentRequestId()! } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new DependencyFailed('unreachable');
    }
    const text = await response.text();
    let payload: { code?: string; detail?: string; errors?: [] } | undefined;
    try {
      payload = text ? JSON.parse(text) : undefined;
    } catch {
      throw new DependencyFailed('bad_answer');
    }
    if (!response.ok) {
      if (payload?.code && response.status < 500) {
        throw new RemoteRefusal(response.status, payload.code, payload.detail ?? payload.code, payload.errors);
      }
      throw new DependencyFailed('unreachable');
    }
    return payload;
  }
}
