import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  RedisClient as RedisClientClass,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from '@redis/client';
import type { Logger } from 'pino';
import { endDependents } from './closing';
import { currentRedisUrl, parseRedisTarget } from './target';

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
 * `current` names the client each call goes to, which a failover replaces (`connectRedis`);
 * `onReply` hears every failed command's error.
 */
function bounded<T extends object>(initial: T, ms: number, current: () => T = () => initial, onError: (err: unknown) => void = () => undefined): T {
  return new Proxy(initial, {
    get(_, property, proxy) {
      const object = current();
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(object, args);
        if (isThenable(result)) {
          return withDeadline(result, ms, String(property)).catch((err: unknown) => {
            onError(err);
            throw err;
          });
        }
        if (result === object) return proxy;
        if (typeof result === 'object' && result !== null) return bounded(result, ms, undefined, onError);
        return result;
      };
    },
  });
}

export interface RedisOptions {
  /** how long a command may wait for its answer before it fails */
  commandTimeoutMs?: number;
}

/** Reconnection waits: doubling from 100 ms to 2 s, with jitter so a fleet of replicas does not reconnect in step. */
const reconnectDelay = (retries: number) => Math.min(100 * 2 ** retries, 2000) + Math.floor(Math.random() * 100);

/**
 * node-redis builds a client class (some 500 command methods) per distinct options object, and
 * remembers only the last one it built, keyed by the whole options, URL included: every client with
 * another URL (a process's own Redis user, a replica after a failover) paid ~25 ms of CPU to build
 * it again. The class depends only on modules, scripts, functions and RESP, none of which we use,
 * so it is built once here and every client is an instance of it.
 */
const newClient = RedisClientClass.factory({});

function createRedisClient(url: string, commandTimeoutMs: number) {
  return newClient({
    url,
    // While reconnecting, commands fail at once instead of queueing for an unknown time.
    disableOfflineQueue: true,
    // Bounds what a long stall can pile up; past it commands fail at once.
    commandsQueueMaxLength: 10_000,
    commandOptions: { timeout: commandTimeoutMs },
    socket: { reconnectStrategy: reconnectDelay },
  });
}

export type RedisClient = ReturnType<typeof createRedisClient>;

/** A write answered by a replica: the connection leads to a server a failover demoted (or to the wrong node). */
const isReadOnlyReply = (err: unknown) => err instanceof RedisUnavailableError && err.cause instanceof ErrorReply && err.cause.message.startsWith('READONLY');

/**
 * Connects to `url`'s Redis: one address, or the master its Sentinels name (`redis+sentinel://…`,
 * target.ts). The client reconnects by itself when the connection drops (a restart, a network
 * cut); commands meanwhile fail at once as RedisUnavailableError. Through a failover (ADR 0064):
 * a write answered READONLY means the connection leads to a replica (the old primary, or an
 * address its provider has not moved yet), so the client is replaced by a new connection, which
 * resolves the name again or asks the Sentinels where the master is now; with Sentinels, a lost
 * connection also asks them, and moves to the new master when they name another. The object the
 * caller holds stays the same. A subscriber made with `duplicate()` stays on the node it was made
 * for (a replica still delivers what is published on the master).
 */
export async function connectRedis(url: string, log: Logger, opts: RedisOptions = {}): Promise<RedisClient> {
  const timeoutMs = opts.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  const target = parseRedisTarget(url);
  // One line when Redis becomes unreachable and one when it is back, not one per reconnection attempt.
  let down = false;
  let client: RedisClient;
  let address: string;
  let replacing: Promise<void> | undefined;
  let closed = false;

  const open = async (at: string) => {
    const next = createRedisClient(at, timeoutMs);
    next.on('error', (err: Error) => {
      if (next === client && target.kind === 'sentinel') void moveTo('the connection to the master was lost');
      if (down) return;
      down = true;
      log.warn({ err: { message: err.message } }, 'redis unreachable; reconnecting in the background');
    });
    next.on('ready', () => {
      if (!down) return;
      down = false;
      log.info('redis reachable again');
    });
    await next.connect();
    return next;
  };

  /** Replaces the client with one connected where the target leads now; one replacement at a time. */
  const moveTo = (reason: string, always = false) => {
    replacing ??= (async () => {
      try {
        const now = await currentRedisUrl(target);
        if (closed || (now === address && !always)) return;
        const next = await open(now);
        if (closed) {
          next.destroy();
          return;
        }
        const previous = client;
        client = next;
        address = now;
        log.warn({ reason }, 'redis connection replaced after a failover');
        previous.destroy();
      } catch (err) {
        // the next failed command tries again; meanwhile commands fail as unavailable
        log.warn({ err: { message: (err as Error).message }, reason }, 'redis failover: no new connection yet');
      } finally {
        replacing = undefined;
      }
    })();
    return replacing;
  };

  address = await currentRedisUrl(target);
  client = await open(address);
  const proxy = bounded(client, timeoutMs, () => client, (err) => {
    if (isReadOnlyReply(err)) void moveTo('a write was answered READONLY', true);
  });
  // once the caller ends the client, no failover may open another, and what was opened from it ends too
  const ending: RedisClient = new Proxy(proxy, {
    get(bound, property, receiver) {
      const value: unknown = Reflect.get(bound, property, receiver);
      if (!(property === 'quit' || property === 'close' || property === 'destroy') || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        closed = true;
        endDependents(ending);
        const result = (value as (...a: unknown[]) => unknown)(...args);
        if (property === 'destroy') return result;
        // A QUIT that Redis did not answer in time (a stall, a loaded machine) leaves nothing to wait
        // for: the connection is dropped instead, and the caller's shutdown goes on.
        return Promise.resolve(result).catch((err: unknown) => {
          if (!(err instanceof RedisUnavailableError)) throw err;
          log.warn({ err: { message: err.message } }, 'redis did not answer the quit in time; connection dropped');
          client.destroy();
        });
      };
    },
  });
  return ending;
}
export * from './acl';
export * from './channel';
export * from './target';
