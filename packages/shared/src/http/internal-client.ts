import { Agent, request } from 'undici';
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
 * Sent with undici's `request` over the client's own keep-alive pool, not `fetch`: the same client
 * without the WHATWG Request/Response layers costs a quarter of the CPU per call (ADR 0077).
 */
export class InternalClient {
  private readonly replicas: Record<string, Replicas<string>>;
  private readonly pool = new Agent();

  /**
   * `baseUrls`: each service's URL, or its replicas' URLs comma-separated, taken in turn;
   * `now`: the clock that times how long a refusing replica is passed over
   */
  constructor(
    baseUrls: Record<ServiceName, string>,
    private readonly assertion: (target: AssertionTarget) => string | Promise<string>,
    private readonly timeoutMs = 5000,
    ejectMs = DEFAULT_REPLICA_EJECT_MS,
    now: () => number = Date.now,
  ) {
    this.replicas = Object.fromEntries(
      Object.entries(baseUrls).map(([service, urls]) => [service, new Replicas(addressesOf(urls), ejectMs, now)]),
    );
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
  private async answerOf(service: ServiceName, path: string, options: RequestOptions): Promise<Answer> {
    const replicas = this.replicas[service]!;
    const tried = new Set<number>();
    for (let index = replicas.pick(); index !== undefined; index = replicas.pick(tried)) {
      try {
        const response = await request(replicas.items[index] + path, { ...options, dispatcher: this.pool });
        return { status: response.statusCode, text: await response.body.text() };
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
    const answer = await this.answerOf(contract.service, path + query, {
      method: method as RequestOptions['method'],
      headers: {
        [ASSERTION_HEADER]: await this.assertion({ audience: contract.service, method, path }),
        'content-type': 'application/json',
        ...(currentRequestId() ? { 'x-request-id': currentRequestId()! } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    let payload: { code?: string; detail?: string; errors?: [] } | undefined;
    try {
      payload = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      throw new DependencyFailed('bad_answer');
    }
    if (answer.status < 200 || answer.status > 299) {
      if (payload?.code && answer.status < 500) {
        throw new RemoteRefusal(answer.status, payload.code, payload.detail ?? payload.code, payload.errors);
      }
      throw new DependencyFailed('unreachable');
    }
    return payload;
  }
}

type RequestOptions = NonNullable<Parameters<typeof request>[1]>;

/** A replica's answer, read whole within the call's deadline. */
interface Answer {
  status: number;
  text: string;
}

/** The failure when the connection was refused: the request never reached the replica. */
function isConnectionRefused(err: unknown): boolean {
  return (err as { code?: string } | undefined)?.code === 'ECONNREFUSED';
}
