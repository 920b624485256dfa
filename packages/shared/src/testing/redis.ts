import { randomBytes } from 'node:crypto';
import { createClient } from '@redis/client';
import { REDIS_PROCESSES, redisAclRules, redisUrlAs, type RedisProcess } from '../redis/acl';

/**
 * A Redis user per process for one test's key prefix, restricted as production restricts them
 * (ADR 0054), made with `ACL SETUSER` by the URL's own user (the default one, left as it is);
 * `close()` deletes them.
 */
export interface TestRedisUsers {
  urlOf(process: RedisProcess): string;
  close(): Promise<void>;
}

export async function provisionTestRedis(redisUrl: string, prefix: string): Promise<TestRedisUsers> {
  const id = randomBytes(4).toString('hex');
  const users = new Map(REDIS_PROCESSES.map((p) => [p as string, { name: `t_${id}_${p}`, password: randomBytes(12).toString('hex') }]));
  const admin = createClient({ url: redisUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  const close = async () => {
    await admin.sendCommand(['ACL', 'DELUSER', ...[...users.values()].map((u) => u.name)]).catch(() => undefined);
    await admin.quit().catch(() => undefined);
  };
  try {
    for (const process of REDIS_PROCESSES) {
      const user = users.get(process)!;
      await admin.sendCommand(['ACL', 'SETUSER', user.name, 'reset', 'on', `>${user.password}`, ...redisAclRules(process, prefix)]);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    urlOf: (process) => {
      const user = users.get(process)!;
      return redisUrlAs(redisUrl, user.name, user.password);
    },
    close,
  };
}

/** The Redis URL `process` connects with in a test environment: its own user where the stack made one. */
export function processRedisUrl(env: NodeJS.ProcessEnv, process: RedisProcess): string {
  return String(env[`${process.toUpperCase()}_REDIS_URL`] ?? env.REDIS_URL);
}

/** `<PROCESS>_REDIS_URL` for each process, which `processRedisUrl` picks. */
export function testRedisEnv(users: TestRedisUsers): Record<string, string> {
  return Object.fromEntries(REDIS_PROCESSES.map((p) => [`${p.toUpperCase()}_REDIS_URL`, users.urlOf(p)]));
}
