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
 * Per-address limits (ADR 0009). The flood guard over all routes is counted in each gateway
 * process: a Redis round trip on every request would cost a fifth of the gateway's CPU. The
 * limits on routes that invite abuse (SMS, logins, open upload) are counted in Redis, so they hold
 * across every replica.
 */
export function createRateLimits(redis: RedisClient, config: GatewayConfig) {
  const prefix = `${config.REDIS_KEY_PREFIX}rl`;
  const global = new RateLimiterMemory({ keyPrefix: `${prefix}:all`, points: config.RATE_LIMIT_PER_MINUTE, duration: 60 });
  const byClass: Record<NonNullable<EdgePolicy['rate']>, RateLimiterAbstract> = {
    sms: sharedLimiter(redis, `${prefix}:sms`, config.RATE_LIMIT_SMS_PER_MINUTE),
    login: sharedLimiter(redis, `${prefix}:login`, config.RATE_LIMIT_LOGIN_PER_MINUTE),
    admin_login: sharedLimiter(redis, `${prefix}:admin-login`, config.RATE_LIMIT_LOGIN_PER_MINUTE),
    open_upload: sharedLimiter(redis, `${prefix}:open-upload`, config.RATE_LIMIT_OPEN_UPLOAD_PER_MINUTE),
  };

  return async function consume(route: AnyRoute, clientKey: string) {
    try {
      await global.consume(clientKey);
      const rate = route.edge?.rate;
      if (rate) await byClass[rate].consume(clientKey);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw problems.rateLimited(err.msBeforeNext / 1000);
      throw err;
    }
  };
}
