import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  createClient,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from 'redis';
import type { Logger } from 'pino';

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * Redis gave no usable answer: unreachable, reconnecting, stalled past the command deadline, or
 * busy with a state it must leave first (loading, failover). Callers may let it propagate: the
 * error handler answers it with a 503 problem. A command that timed out may still take effect
 * when Redis resumes; every write here is idempotent or expires (ADR 0012).
 */
export class RedisUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RedisUnavailableError';
  }
}

/** node-redis's ways of saying the connection is not there or did not answer. */
const CONNECTION_ERRORS = [
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
];

/** Replies that mean "not now" rather than "wrong command". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN)\b/;

/** Socket failures, which carry Node's errno code. */
const SOCKET_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Unavailability becomes RedisUnavailableError; anything else (a wrong command, a bug) stays what it is. */
function asUnavailable(err: unknown): unknown {
  const unavailable =
    CONNECTION_ERRORS.some((type) => err instanceof type) ||
    (err instanceof ErrorReply && TRANSIENT_REPLY.test(err.message)) ||
    SOCKET_ERRNO.has((err as { code?: string })?.code ?? '') ||
    (err as Error)?.message === 'The queue is full';
  return unavailable ? new RedisUnavailableError(`redis unavailable: ${(err as Error).message}`, { cause: err }) : err;
}

/**
 * Settles like `work`, or fails after `ms`. node-redis's own command timeout stops counting once a
 * command is written, and a stalled Redis accepts writes and never answers; this deadline covers
 * the wait for the reply too. The abandoned command's late answer is ignored.
 */
function withDeadline<T>(work: Promise<T>, ms: number, command: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError(`redis did not answer ${command} within ${ms} ms`)), ms);
  });
  return Promise.race([work, expired]).then(
    (value) => {
      clearTimeout(timer);
      return value;
    },
    (err: unknown) => {
      clearTimeout(timer);
      throw asUnavailable(err);
    },
  );
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | null)?.then === 'function';
}

/**
 * The client with every command bounded by the deadline, and so are the objects it hands out
 * (MULTI, `withCommandOptions`, `duplicate`). Wrapping the client once keeps the bound for every
 * caller, rate-limiter-flexible included, instead of relying on each call site to remember it.
 */
function bounded<T extends object>(target: T, ms: number): T {
  return new Proxy(target, {
    get(object, property, proxy) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(object, args);
        if (isThenable(result)) return withDeadline(result, ms, String(property));
        if (result === object) return proxy;
        if (typeof result === 'object' && result !== null) return bounded(result, ms);
        return result;
      };
    },
  });
}

export interface RedisOptions {
  /** how long a command may wait for its answer before it fails */
  commandTimeoutMs?: number;
}

function createRedisClient(url: string, commandTimeoutMs: number) {
  return createClient({
    url,
    // While reconnecting, commands fail at once instead of queueing for an unknown time.
    disableOfflineQueue: true,
    // Bounds what a long stall can pile up; past it commands fail at once.
    commandsQueueMaxLength: 10_000,
    commandOptions: { timeout: commandTimeoutMs },
    socket: { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
  });
}

export type RedisClient = ReturnType<typeof createRedisClient>;

export async function connectRedis(url: string, log: Logger, opts: RedisOptions = {}): Promise<RedisClient> {
  const timeoutMs = opts.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  const client = createRedisClient(url, timeoutMs);
  // One line when Redis becomes unreachable and one when it is back, not one per reconnection attempt.
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ err: { message: err.message } }, 'redis unreachable; reconnecting in the background');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    log.info('redis reachable again');
  });
  await client.connect();
  return bounded(client, timeoutMs);
}
export * from './acl';
