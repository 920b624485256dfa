import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '@market/shared/redis';
import { secondsUntilNextUtcDay, utcDay } from '../domain/sms-policy';

/**
 * Counts uses per UTC day in Redis (rate-limiter-flexible, one counter per name and calendar day);
 * refuses once `limit` is passed, until the day turns.
 */
export class DailyQuota {
  private readonly limiters = new Map<number, RateLimiterRedis>();

  constructor(
    private readonly redis: RedisClient,
    private readonly key: (name: string) => string,
  ) {}

  private limiterFor(limit: number): RateLimiterRedis {
    let limiter = this.limiters.get(limit);
    if (!limiter) {
      // The day is in the key, so the window only has to outlive the day.
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        useRedisPackage: true,
        keyPrefix: this.key('identity:quota'),
        points: limit,
        duration: 2 * 86_400,
      });
      this.limiters.set(limit, limiter);
    }
    return limiter;
  }

  /** Counts one use; answers 0 when within the limit, else the seconds until the next day. */
  async consume(name: string, limit: number, now = new Date()): Promise<number> {
    try {
      await this.limiterFor(limit).consume(`${name}:${utcDay(now)}`);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) return secondsUntilNextUtcDay(now);
      throw err;
    }
  }

  /** Gives back one use counted today, for an action that did not happen after all. */
  async refund(name: string, limit: number, now = new Date()): Promise<void> {
    await this.limiterFor(limit).reward(`${name}:${utcDay(now)}`, 1);
  }
}
