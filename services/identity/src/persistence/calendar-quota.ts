import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '@market/shared/redis';
import { type QuotaPeriod, periodOf, secondsUntilNextPeriod } from '../domain/sms-policy';

/**
 * Counts uses per UTC day or hour in Redis (rate-limiter-flexible, one counter per name and
 * calendar period); refuses once `limit` is passed, until the period turns.
 */
export class CalendarQuota {
  private readonly limiters = new Map<number, RateLimiterRedis>();

  constructor(
    private readonly redis: RedisClient,
    private readonly key: (name: string) => string,
  ) {}

  private limiterFor(limit: number): RateLimiterRedis {
    let limiter = this.limiters.get(limit);
    if (!limiter) {
      // The period is in the key, so the window only has to outlive the longest period, a day.
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

  /** Counts one use; answers 0 when within the limit, else the seconds until the next period. */
  async consume(name: string, limit: number, period: QuotaPeriod = 'day', now = new Date()): Promise<number> {
    try {
      await this.limiterFor(limit).consume(`${name}:${periodOf(period, now)}`);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) return secondsUntilNextPeriod(period, now);
      throw err;
    }
  }

  /** Gives back one use counted in this period, for an action that did not happen after all. */
  async refund(name: string, limit: number, period: QuotaPeriod = 'day', now = new Date()): Promise<void> {
    await this.limiterFor(limit).reward(`${name}:${periodOf(period, now)}`, 1);
  }
}
