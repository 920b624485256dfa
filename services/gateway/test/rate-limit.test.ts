import { createClient } from '@redis/client';
import { sendSmsCode } from '@market/contracts';
import { Problem } from '@market/shared/http';
import { createLogger } from '@market/shared/logging';
import { connectRedis, type RedisClient } from '@market/shared/redis';
import { resolveInfra, uniqueName } from '@market/shared/testing';
import { loadGatewayConfig } from '../src/config';
import { createRateLimits } from '../src/rate-limit';

describe('the gateway rate limits counted in Redis, when Redis stalls', () => {
  let redisUrl: string;
  let redis: RedisClient;

  beforeAll(async () => {
    redisUrl = (await resolveInfra()).REDIS_URL;
    // A deadline longer than the pause: only the limiter's own fallback can answer early.
    redis = await connectRedis(redisUrl, createLogger('test', 'silent'), { commandTimeoutMs: 5000 });
  });
  afterAll(() => redis.quit());

  it('counts in process memory after 250 ms instead of waiting for Redis, and the limit still holds', async () => {
    const consume = createRateLimits(
      redis,
      loadGatewayConfig({ NODE_ENV: 'development', REDIS_KEY_PREFIX: `${uniqueName('t')}:`, RATE_LIMIT_SMS_PER_MINUTE: '2' }),
    );
    const admin = createClient({ url: redisUrl });
    await admin.connect();
    await admin.sendCommand(['CLIENT', 'PAUSE', '2000', 'ALL']);
    // QUIT would wait out the pause like any other command
    admin.destroy();

    const started = Date.now();
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => consume(sendSmsCode, '10.9.8.7')));
    const answeredMs = Date.now() - started;

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o.reason as Problem).status)).toEqual([429]);
    expect(answeredMs).toBeLessThan(1500);
    // the pause is over once the stalled commands come back
    await redis.ping();
  });
});
