import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allInternalRoutes, type AnyInternalRoute, type InternalInput, type InternalResult, type ServiceName } from '@market/contracts';
import { ASSERTION_HEADER, type AssertionVerifier } from '@market/shared/auth';
import { testAssertionVerifier } from '@market/shared/testing';
import { Problem } from '@market/shared/http';

/** A neighbour's refusal, answered as the problem its real provider would send. */
export class Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string = code,
  ) {}
}

/** What a fake answers a call with: a refusal (`refuse(404, 'NOT_FOUND')`), or a 5xx without a problem (the provider down). */
export const refuse = (status: number, code: string, detail?: string) => new Refusal(status, code, detail);

export type AnswerFn<C extends AnyInternalRoute> = (input: InternalInput<C>) => InternalResult<C> | Refusal | Promise<InternalResult<C> | Refusal>;

/** One route's answer, as a test gives it before or after the service starts. */
export interface Answer {
  contract: AnyInternalRoute;
  answer: AnswerFn<any>;
}

/** Binds an answer to a contract, typed by that contract's input and response. */
export function answer<C extends AnyInternalRoute>(contract: C, fn: AnswerFn<C>): Answer {
  return { contract, answer: fn };
}

export interface NeighbourCall<C extends AnyInternalRoute = AnyInternalRoute> {
  input: InternalInput<C>;
}

/** `/listings/{id}` → a pattern over the path below `/internal`, capturing each parameter by name. */
function pathPattern(template: string): RegExp {
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? `(?<${part.slice(1, -1)}>[^/]+)` : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

const literalSegments = (contract: AnyInternalRoute) => contract.path.split('/').filter((s) => s && !s.startsWith('{')).length;

function readRequestText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' });
  res.end(JSON.stringify(body));
}

/** The problem body a provider's kit would send. */
const problem = (status: number, code: string, detail: string, instance: string) => new Problem(status, code, detail).toBody(instance);

/**
 * Every other service, faked at its `/internal/*` contracts (`@market/contracts` internal.ts): one
 * HTTP server per service, on a port the kernel picks, whose URL the service under test is given.
 * A call is held against its contract before the test's answer is asked for: the service's
 * assertion (it speaks as itself and is one of the route's callers), then path, query and body
 * through the contract's zod schemas. The test's answer is held against the response schema before
 * it goes out. A call no contract has, a call nobody answered, or an answer off its contract is a
 * violation: answered 500, so the service meets a failing neighbour, and kept for `takeViolations()`.
 */
export class FakeNeighbours {
  private readonly servers = new Map<ServiceName, Server>();
  private readonly answers = new Map<string, AnswerFn<any>>();
  private readonly seen = new Map<string, NeighbourCall[]>();
  private readonly violations: string[] = [];
  private readonly verifiers = new Map<ServiceName, AssertionVerifier>();

  private constructor(private readonly caller: ServiceName) {}

  /** Fakes for every service but `caller`, listening; `urls` gives their `<NAME>_URL` variables. */
  static async start(caller: ServiceName, neighbours: readonly ServiceName[]): Promise<FakeNeighbours> {
    const fakes = new FakeNeighbours(caller);
    try {
      for (const service of neighbours) {
        const server = createServer((req, res) => {
          fakes.handle(service, req, res).catch((err: Error) => {
            fakes.violations.push(`${service}: the fake failed on ${req.method} ${req.url}: ${err.message}`);
            if (!res.headersSent) send(res, 500, problem(500, 'FAKE_FAILED', err.message, req.url ?? ''));
          });
        });
        fakes.servers.set(service, server);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      }
    } catch (err) {
      await fakes.close();
      throw err;
    }
    return fakes;
  }

  /** `CATALOG_URL` and so on, pointing at the fakes. */
  urls(): Record<string, string> {
    return Object.fromEntries(
      [...this.servers].map(([service, server]) => [`${service.toUpperCase()}_URL`, `http://127.0.0.1:${(server.address() as AddressInfo).port}`]),
    );
  }

  /** Sets (or replaces) what a route answers from now on; the function returned puts the answer before back (an outage a test stages and ends). */
  answer<C extends AnyInternalRoute>(contract: C, fn: AnswerFn<C>): () => void {
    const before = this.answers.get(contract.id);
    this.answers.set(contract.id, fn);
    return () => {
      if (before) this.answers.set(contract.id, before);
      else this.answers.delete(contract.id);
    };
  }

  /** The calls a route received, oldest first, with their inputs as the contract parsed them. */
  calls<C extends AnyInternalRoute>(contract: C): Array<NeighbourCall<C>> {
    return (this.seen.get(contract.id) ?? []) as Array<NeighbourCall<C>>;
  }

  /** The violations seen since the last call, forgotten as they are handed out. */
  takeViolations(): string[] {
    return this.violations.splice(0);
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.servers.values()].map(
        (server) =>
          new Promise<void>((resolve) => {
            if (!server.listening) return resolve();
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }

  private violation(res: ServerResponse, instance: string, message: string) {
    this.violations.push(message);
    send(res, 500, problem(500, 'CONTRACT_VIOLATION', message, instance));
  }

  private async handle(service: ServiceName, req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? '').toLowerCase();
    const below = url.pathname.startsWith('/internal/') ? url.pathname.slice('/internal'.length) : null;
    const candidates = allInternalRoutes
      .filter((c) => c.service === service && c.method === method)
      .sort((a, b) => literalSegments(b) - literalSegments(a));
    let contract: AnyInternalRoute | undefined;
    let rawParams: Record<string, string> = {};
    for (const candidate of below === null ? [] : candidates) {
      const match = pathPattern(candidate.path).exec(below!);
      if (!match) continue;
      contract = candidate;
      rawParams = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
      break;
    }
    if (!contract) return this.violation(res, url.pathname, `${this.caller} called ${req.method} ${url.pathname} on ${service}: no internal contract has it`);

    // as the real provider checks it: made for this service, this method and this path
    const verify = this.verifiers.get(service) ?? this.verifiers.set(service, testAssertionVerifier(service)).get(service)!;
    const identity = await verify(req.headers[ASSERTION_HEADER] as string | undefined, req.method ?? '', url.pathname);
    if (identity?.kind !== 'service' || identity.sub !== this.caller) {
      return this.violation(res, url.pathname, `${contract.id}: the call did not carry ${this.caller}'s service assertion`);
    }
    if (!contract.callers.includes(identity.sub)) {
      return this.violation(res, url.pathname, `${contract.id}: ${identity.sub} is not among its callers (${contract.callers.join(', ')})`);
    }
    const text = await readRequestText(req);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return this.violation(res, url.pathname, `${contract.id}: the request body is not JSON`);
    }
    const parts = [
      ['params', contract.params, rawParams],
      ['query', contract.query, Object.fromEntries(url.searchParams)],
      ['body', contract.body, body],
    ] as const;
    const input: Record<string, unknown> = {};
    for (const [part, schema, value] of parts) {
      if (!schema) {
        const empty = value === undefined || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
        if (!empty) return this.violation(res, url.pathname, `${contract.id}: sent ${part} the contract does not take: ${JSON.stringify(value)}`);
        input[part] = undefined;
        continue;
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        return this.violation(res, url.pathname, `${contract.id}: ${part} off the contract: ${JSON.stringify(value)} (${parsed.error.message})`);
      }
      input[part] = parsed.data;
    }
    const list = this.seen.get(contract.id) ?? [];
    list.push({ input: input as InternalInput<AnyInternalRoute> });
    this.seen.set(contract.id, list);

    const fn = this.answers.get(contract.id);
    if (!fn) return this.violation(res, url.pathname, `${contract.id} was called but the test gave it no answer`);
    const result = await fn(input as InternalInput<AnyInternalRoute>);
    if (result instanceof Refusal) {
      return send(res, result.status, result.status >= 500 ? { error: result.detail } : problem(result.status, result.code, result.detail, url.pathname));
    }
    const checked = contract.response.safeParse(result);
    if (!checked.success) {
      return this.violation(res, url.pathname, `${contract.id}: the test's answer is off the contract: ${JSON.stringify(result)} (${checked.error.message})`);
    }
    send(res, 200, result);
  }
}
