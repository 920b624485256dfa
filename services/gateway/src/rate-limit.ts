import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { problems, type AnyRoute, type RedisClient } from '@market/shared';
import type { GatewayConfig } from './config';

function sharedLimiter(redis: RedisClient, keyPrefix: string, points: number): RateLimiterAbstract {
  return new RateLimiterRedis({
    storeClient: redis,
    useRedisPackage: true,
    keyPrefix,
    points,
    duration: 60,
    // If Redis is down the limit still holds per gateway process instead of failing open or closed.
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
  const perRoute: Record<string, RateLimiterAbstract> = {
    sendSmsCode: sharedLimiter(redis, `${prefix}:sms`, config.RATE_LIMIT_SMS_PER_MINUTE),
    loginWithSms: sharedLimiter(redis, `${prefix}:login`, config.RATE_LIMIT_LOGIN_PER_MINUTE),
    adminLogin: sharedLimiter(redis, `${prefix}:admin-login`, config.RATE_LIMIT_LOGIN_PER_MINUTE),
    openUploadListings: sharedLimiter(redis, `${prefix}:open-upload`, config.RATE_LIMIT_OPEN_UPLOAD_PER_MINUTE),
  };

  return async function consume(route: AnyRoute, clientKey: string) {
    try {
      await global.consume(clientKey);
      const special = perRoute[route.id];
      if (special) await special.consume(clientKey);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw problems.rateLimited(err.msBeforeNext / 1000);
      throw err;
    }
  };
}
