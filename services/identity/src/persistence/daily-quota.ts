import type { RedisClient } from '@market/shared';
import { secondsUntilNextUtcDay, utcDay } from '../domain/sms-policy';

/** Counts uses per UTC day in Redis; refuses once `limit` is passed, until the day turns. */
export class DailyQuota {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: (name: string) => string,
  ) {}

  /** Counts one use; answers 0 when within the limit, else the seconds until the next day. */
  async consume(name: string, limit: number, now = new Date()): Promise<number> {
    const key = this.key(`identity:quota:${name}:${utcDay(now)}`);
    const [used] = (await this.redis.multi().incr(key).expire(key, 2 * 86_400).exec()) as unknown as [number];
    return used > limit ? secondsUntilNextUtcDay(now) : 0;
  }
}
