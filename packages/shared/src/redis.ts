import { createClient } from 'redis';
import type { Logger } from 'pino';

function createRedisClient(url: string) {
  return createClient({
    url,
    socket: { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
  });
}

export type RedisClient = ReturnType<typeof createRedisClient>;

export async function connectRedis(url: string, log: Logger): Promise<RedisClient> {
  const client = createRedisClient(url);
  client.on('error', (err: Error) => log.warn({ err: { message: err.message } }, 'redis error'));
  await client.connect();
  return client;
}
