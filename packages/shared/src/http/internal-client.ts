import { ASSERTION_HEADER, type AssertionTarget } from '../auth/assertion';
import type { ServiceName, AnyInternalRoute, InternalInput, InternalResult } from '@market/contracts';
import { currentRequestId } from '../context/request-context';
import { DependencyFailed } from '../errors';
import { RemoteRefusal } from './error-statuses';
import { addressesOf, DEFAULT_REPLICA_EJECT_MS, Replicas } from '../config/addresses';

/**
 * Calls other services' `/internal/*` routes by their shared contracts: signed as the calling
 * service for the receiving service, method and path (ADR 0053), carrying the request id, with a
 * timeout. A downstream refusal is passed on as a
 * `RemoteRefusal`; an unreachable service or an answer off the contract is a `DependencyFailed`.
 * A replica that refuses the connection (down or restarting) is skipped: the call goes to the
 * next one, since the request never reached it, and later calls pass over it a while (ADR 0046).
 */
export class InternalClient {
  private readonly replicas: Record<string, Replicas<string>>;

  /** `baseUrls`: each service's URL, or its replicas' URLs comma-separated, taken in turn */
  constructor(
    baseUrls: Record<ServiceName, string>,
    private readonly assertion: (target: AssertionTarget) => string | Promise<string>,
    private readonly timeoutMs = 5000,
    ejectMs = DEFAULT_REPLICA_EJECT_MS,
  ) {
    this.replicas = Object.fromEntries(Object.entries(baseUrls).map(([service, urls]) => [service, new Replicas(addressesOf(urls), ejectMs)]));
  }

  async call<C extends AnyInternalRoute>(contract: C, input: Partial<InternalInput<C>> = {}): Promise<InternalResult<C>> {
    const params = (input.params ?? {}) as Record<string, unknown>;
    const path = contract.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
    const query = input.query ? `?${new URLSearchParams(input.query as Record<string, string>).toString()}` : '';
    const payload = await this.send(contract, `/internal${path}`, query, input.body);
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

  /**
   * The answer of one replica: the next in turn, or the one after it when a replica refuses the
   * connection. A timeout or any other failure is not tried elsewhere: the request may have been
   * applied.
   */
  private async answerOf(service: ServiceName, path: string, init: RequestInit): Promise<globalThis.Response> {
    const replicas = this.replicas[service]!;
    const tried = new Set<number>();
    for (let index = replicas.pick(); index !== undefined; index = replicas.pick(tried)) {
      try {
        return await fetch(replicas.items[index] + path, init);
      } catch (err) {
        if (!isConnectionRefused(err)) break;
        replicas.refused(index);
        tried.add(index);
      }
    }
    throw new DependencyFailed('unreachable');
  }

  private async send(contract: AnyInternalRoute, path: string, query: string, body: unknown): Promise<unknown> {
    const method = contract.method.toUpperCase();
    const response = await this.answerOf(contract.service, path + query, {
      method,
      headers: {
        [ASSERTION_HEADER]: await this.assertion({ audience: contract.service, method, path }),
        'content-type': 'application/json',
        ...(currentRequestId() ? { 'x-request-id': currentRequestId()! } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
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

/** fetch's failure when the connection was refused: the request never reached the replica. */
function isConnectionRefused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
}
