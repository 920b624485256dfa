import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@redis/client';
import { createLogger } from '../src/logging';
import { connectRedis, parseRedisTarget, RedisUnavailableError, type RedisClient } from '../src/redis';

/**
 * The kit's Redis client through a failover (ADR 0064), on private redis-servers and a private
 * Sentinel this file starts on free ports (never the shared Redis): a primary demoted under an open
 * connection while its address moves to the promoted replica, and a master that Sentinel replaces.
 */

const log = createLogger('test', 'silent');
const dir = mkdtempSync(path.join(tmpdir(), 'redis-failover-'));
const started: ChildProcess[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch((err: Error) => err as unknown as T);
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in time; last value: ${String(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A redis-server (or, with `sentinel`, a Sentinel from the config file it writes) of this file's own. */
async function startRedis(port: number, args: string[] = [], sentinel?: string): Promise<ChildProcess> {
  const child = sentinel
    ? spawn('redis-server', [writeConfig(`sentinel-${port}.conf`, sentinel), '--sentinel', '--port', String(port), '--bind', '127.0.0.1'], { stdio: 'ignore' })
    : spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...args], { stdio: 'ignore' });
  started.push(child);
  await waitFor(() => command(port, ['PING']), (reply) => reply === 'PONG');
  return child;
}

function writeConfig(name: string, text: string) {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function command(port: number, args: string[]): Promise<unknown> {
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.sendCommand(args);
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** A TCP relay whose target the test moves, as a provider moves a name to the new primary; open connections stay where they were. */
async function movableRelay(port: number) {
  let target = port;
  const sockets = new Set<Socket>();
  const relay: Server = createServer((inbound) => {
    const outbound = connect(target, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    moveTo: (next: number) => (target = next),
    close: () => {
      relay.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('the kit reads a Sentinel REDIS_URL', () => {
  it('as the Sentinels, the master name, the process user and the database', () => {
    expect(parseRedisTarget('redis+sentinel://market_gateway:s%3Acret@s1:26379,s2,10.0.0.3:26380/market/2')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '10.0.0.3', port: 26380 },
      ],
      master: 'market',
      username: 'market_gateway',
      password: 's:cret',
      database: 2,
    });
    expect(parseRedisTarget('redis://u:p@redis:6379')).toEqual({ kind: 'direct', url: 'redis://u:p@redis:6379' });
    expect(() => parseRedisTarget('redis+sentinel://s1:26379')).toThrow(/master name/);
  });
});

describe('the kit Redis client through a failover', () => {
  let client: RedisClient | undefined;
  afterEach(async () => {
    await client?.quit().catch(() => undefined);
    client = undefined;
  });

  it('takes a write a demoted primary answers READONLY as unavailable, never done, and reconnects to where the address leads now', async () => {
    const [primary, replica] = [await freePort(), await freePort()];
    await startRedis(primary);
    await startRedis(replica, ['--replicaof', '127.0.0.1', String(primary)]);
    const address = await movableRelay(primary);
    try {
      client = await connectRedis(`redis://127.0.0.1:${address.port}`, log, { commandTimeoutMs: 1000 });
      await client.set('before', '1');
      await waitFor(() => command(replica, ['GET', 'before']), (value) => value === '1');

      // the failover: the replica is promoted, the old primary follows it, the name moves
      await command(replica, ['REPLICAOF', 'NO', 'ONE']);
      await command(primary, ['REPLICAOF', '127.0.0.1', String(replica)]);
      address.moveTo(replica);

      // the open connection still leads to the old primary: its write is refused and said so
      await expect(client.set('during', '1')).rejects.toBeInstanceOf(RedisUnavailableError);
      // and the client moves by itself: the next writes land on the new primary
      await waitFor(() => client!.set('after', '1'), (reply) => reply === 'OK');
      expect(await command(replica, ['GET', 'after'])).toBe('1');
    } finally {
      address.close();
    }
  });

  it('follows the master Sentinel names when the old one dies', async () => {
    const [first, second, sentinelPort] = [await freePort(), await freePort(), await freePort()];
    const firstNode = await startRedis(first);
    await startRedis(second, ['--replicaof', '127.0.0.1', String(first)]);
    await waitFor(() => command(first, ['INFO', 'replication']), (info) => String(info).includes('connected_slaves:1'));
    await startRedis(
      sentinelPort,
      [],
      `sentinel monitor market 127.0.0.1 ${first} 1\nsentinel down-after-milliseconds market 1000\nsentinel failover-timeout market 5000\n`,
    );
    client = await connectRedis(`redis+sentinel://127.0.0.1:${sentinelPort}/market`, log, { commandTimeoutMs: 1000 });
    expect(await client.set('before', '1')).toBe('OK');
    expect(await command(first, ['GET', 'before'])).toBe('1');

    firstNode.kill('SIGKILL');
    // meanwhile commands fail as unavailable; once Sentinel has promoted the replica the client is there
    await expect(client.set('during', '1')).rejects.toBeInstanceOf(RedisUnavailableError);
    await waitFor(() => client!.set('after', '1'), (reply) => reply === 'OK', 20_000);
    expect(await command(second, ['GET', 'after'])).toBe('1');
    expect(((await command(second, ['ROLE'])) as string[])[0]).toBe('master');
  });
});
