import { createClient } from '@redis/client';

/**
 * Where a process's Redis is: one address (a managed Redis whose name its provider moves to the new
 * primary on a failover), or the master a set of Sentinels names (ADR 0064):
 * `redis+sentinel://<user>:<password>@<sentinel>:26379,<sentinel>:26379/<master name>[/<db>]`.
 * The user and password are the process's own Redis user on the data nodes; the Sentinels are
 * asked without them (their own network policy guards them).
 */
export type RedisTarget =
  | { kind: 'direct'; url: string }
  | { kind: 'sentinel'; sentinels: Array<{ host: string; port: number }>; master: string; username?: string; password?: string; database?: number };

const SENTINEL_URL = /^redis\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/]+)\/([^/?#]+)(?:\/(\d+))?\/?$/;
const DEFAULT_SENTINEL_PORT = 26379;

export function parseRedisTarget(url: string): RedisTarget {
  if (!url.startsWith('redis+sentinel:')) return { kind: 'direct', url };
  const match = SENTINEL_URL.exec(url);
  if (!match) throw new Error('a Sentinel REDIS_URL reads redis+sentinel://<user>:<password>@<host>:<port>,<host>:<port>/<master name>[/<db>]');
  const [, username, password, hosts, master, database] = match;
  const sentinels = hosts!.split(',').map((address) => {
    const [host, port] = address.split(':');
    if (!host) throw new Error(`a Sentinel address in REDIS_URL is empty: "${address}"`);
    return { host, port: port ? Number(port) : DEFAULT_SENTINEL_PORT };
  });
  return {
    kind: 'sentinel',
    sentinels,
    master: decodeURIComponent(master!),
    ...(username ? { username: decodeURIComponent(username) } : {}),
    ...(password ? { password: decodeURIComponent(password) } : {}),
    ...(database ? { database: Number(database) } : {}),
  };
}

/** How long one Sentinel may take to answer where the master is before the next one is asked. */
const SENTINEL_ASK_MS = 1000;

async function askSentinel(sentinel: { host: string; port: number }, master: string): Promise<string | null> {
  const client = createClient({ socket: { host: sentinel.host, port: sentinel.port, connectTimeout: SENTINEL_ASK_MS, reconnectStrategy: false } });
  client.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const asked = (async () => {
      await client.connect();
      return (await client.sendCommand(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', master])) as [string, string] | null;
    })();
    const expired = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SENTINEL_ASK_MS)));
    const address = await Promise.race([asked, expired]);
    if (!address) return null;
    const [host, port] = address;
    return `${host.includes(':') ? `[${host}]` : host}:${port}`;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    if (client.isOpen) client.destroy();
  }
}

/**
 * The URL to connect to now: the direct one, or the master's address as the first Sentinel that
 * knows it says. Fails when none answers, which the caller treats as Redis being away.
 */
export async function currentRedisUrl(target: RedisTarget): Promise<string> {
  if (target.kind === 'direct') return target.url;
  for (const sentinel of target.sentinels) {
    const address = await askSentinel(sentinel, target.master);
    if (!address) continue;
    const url = new URL(`redis://${address}`);
    if (target.username) url.username = encodeURIComponent(target.username);
    if (target.password) url.password = encodeURIComponent(target.password);
    if (target.database !== undefined) url.pathname = `/${target.database}`;
    return url.toString();
  }
  throw new Error(`no Sentinel named the master ${target.master} (asked ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(', ')})`);
}
