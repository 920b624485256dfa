import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@market/shared/redis';

const RELEASE_IF_OURS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A short mutual exclusion across replicas, for work that must not run twice at once (a paid verifier call). */
export class RedisLocks {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: (name: string) => string,
  ) {}

  /** The release function when the lock was free, null when someone holds it. */
  async tryAcquire(name: string, ttlSeconds: number): Promise<(() => Promise<void>) | null> {
    const key = this.key(`identity:lock:${name}`);
    const owner = randomUUID();
    const taken = await this.redis.set(key, owner, { condition: 'NX', expiration: { type: 'EX', value: ttlSeconds } });
    if (!taken) return null;
    return async () => {
      await this.redis.eval(RELEASE_IF_OURS, { keys: [key], arguments: [owner] });
    };
  }
}
