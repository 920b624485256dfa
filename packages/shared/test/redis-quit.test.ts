import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { createLogger } from '../src/logging';
import { connectRedis } from '../src/redis';

/**
 * Redis reached through a proxy of this file's own, which stops passing Redis's answers on when told:
 * a Redis that stalls while a process shuts down.
 */
describe('ending a Redis client', () => {
  it('drops the connection when Redis does not answer the quit in time, instead of failing the shutdown', async () => {
    const target = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    let holding = false;
    let clientClosed!: () => void;
    const closed = new Promise<void>((resolve) => (clientClosed = resolve));
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      sockets.add(client).add(upstream);
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk) => holding || client.write(chunk));
      client.on('close', () => {
        clientClosed();
        upstream.destroy();
      });
      for (const socket of [client, upstream]) socket.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const via = new URL(target);
      via.hostname = '127.0.0.1';
      via.port = String((proxy.address() as AddressInfo).port);
      const redis = await connectRedis(via.toString(), createLogger('test', 'silent'), { commandTimeoutMs: 200 });
      expect(await redis.ping()).toBe('PONG');
      holding = true;
      await expect(redis.quit()).resolves.toBeUndefined();
      await closed;
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
