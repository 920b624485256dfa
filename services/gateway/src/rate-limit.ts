import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { type AnyRoute, type EdgePolicy } from '@market/contracts';
import { problems } from '@market/shared/http';
import { type RedisClient } from '@market/shared/redis';
import type { GatewayConfig } from './config';

/**
 * A healthy Redis counts in about a millisecond. Past this the request is counted in process
 * memory instead: a stalled Redis must not hold every SMS and login request for the full command
 * timeout before the service is even asked.
 */
const SHARED_COUNT_TIMEOUT_MS = 250;

function sharedLimiter(redis: RedisClient, keyPrefix: string, points: number): RateLimiterAbstract {
  return new RLWrapperTimeouts({
    limiter: new RateLimiterRedis({
      storeClient: redis,
      useRedisPackage: true,
      keyPrefix,
      points,
      duration: 60,
      rejectIfRedisNotReady: true,
    }),
    timeoutMs: SHARED_COUNT_TIMEOUT_MS,
    // If Redis is down or slow the limit still holds per gateway process instead of failing open or closed.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${keyPrefix}:mem`, points, duration: 60 }),
  });
}

/**
 * A fixed window of `points` requests per key and `durationMs`, counted in this process without
 * promises: the one limit every request passes (RateLimiterMemory's counting, whose promise, result
 * object and timer per key cost more than the count). Expired windows are swept at most once per
 * window, by the requests themselves.
 */
export class FloodGuard {
  private windows = new Map<string, { count: number; endsAt: number }>();
  private nextSweep: number;

  constructor(
    private readonly points: number,
    private readonly durationMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.nextSweep = now() + durationMs;
  }

  /** Counts one request for `key`; if that is over the limit, how many ms until the window ends. */
  consume(key: string): number | null {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    const window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      this.windows.set(key, { count: 1, endsAt: now + this.durationMs });
      return this.points >= 1 ? null : this.durationMs;
    }
    window.count += 1;
    return window.count > this.points ? window.endsAt - now : null;
  }

  private sweep(now: number) {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    this.nextSweep = now + this.durationMs;
  }
}

/**
 * Per-address limits (ADR 0009). The flood guard over all routes is counted in each gateway
 * process: a Redis round trip on every request would cost a fifth of the gateway's CPU. The
 * limits on routes that invite abuse (SMS, logins, open upload) are counted in Redis, so they hold
 * across every replica.
 *
 * Returns nothing when the request is within its limits and that is known at once (every route
 * without a shared limit), a promise when a shared limit is asked; a refusal is thrown (or
 * rejected) as a 429 problem.
 */
export function createRateLimits(redis: RedisClient, config: GatewayConfig) {
  const prefix = `${config.REDIS_KEY_PREFIX}rl`;
  const flood = new FloodGuard(config.RATE_LIMIT_PER_MINUTE, 60_000);
  const byClass: Record<NonNullable<EdgePolicy['rate']>, RateLimiterAbstract> = {
    sms: sharedLimiter(redis, `${prefix}:sms`, config.RATE_LIMIT_SMS_PER_MINUTE),
    login: sharedLimiter(redis, `${prefix}:login`, config.RATE_LIMIT_LOGIN_PER_MINUTE),
    admin_login: sharedLimiter(redis, `${prefix}:admin-login`, config.RATE_LIMIT_LOGIN_PER_MINUTE),
    open_upload: sharedLimiter(redis, `${prefix}:open-upload`, config.RATE_LIMIT_OPEN_UPLOAD_PER_MINUTE),
  };

  return function consume(route: AnyRoute, clientKey: string): Promise<void> | undefined {
    const wait = flood.consume(clientKey);
    if (wait !== null) throw problems.rateLimited(wait / 1000);
    const rate = route.edge?.rate;
    if (!rate) return undefined;
    return byClass[rate].consume(clientKey).then(
      () => undefined,
      (err: unknown) => {
        if (err instanceof RateLimiterRes) throw problems.rateLimited(err.msBeforeNext / 1000);
        throw err;
      },
    );
  };
}
