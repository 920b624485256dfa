import { Revocations } from '../src/auth/revocation';
import { createLogger } from '../src/logging/logger';
import { connectRedis, type RedisClient, type RedisProcess } from '../src/redis';
import { provisionTestRedis, resolveInfra, uniqueName, type TestRedisUsers } from '../src/testing';

const log = createLogger('redis-acl-test', 'silent');

describe('Redis users per process (ADR 0054): each writes its own keys, the keys the gateway trusts only their owners', () => {
  const prefix = `${uniqueName('t')}:`;
  let users: TestRedisUsers;
  const clients = new Map<RedisProcess, RedisClient>();
  const as = (process: RedisProcess) => clients.get(process)!;

  beforeAll(async () => {
    users = await provisionTestRedis((await resolveInfra()).REDIS_URL, prefix);
    for (const process of ['identity', 'admin', 'catalog', 'gateway', 'notify', 'orders'] as const) {
      clients.set(process, await connectRedis(users.urlOf(process), log));
    }
  });

  afterAll(async () => {
    for (const client of clients.values()) await client.quit();
    await users?.close();
  });

  const refused = /NOPERM/;

  it('a service reads and writes its own namespace, and not another\'s', async () => {
    await as('catalog').set(`${prefix}catalog:probe`, '1');
    expect(await as('catalog').get(`${prefix}catalog:probe`)).toBe('1');
    await expect(as('catalog').set(`${prefix}identity:sms:code:13800000000`, 'forged')).rejects.toThrow(refused);
    await expect(as('catalog').get(`${prefix}admin:captcha:x`)).rejects.toThrow(refused);
    await expect(as('catalog').set(`${prefix}rl:sms:1.2.3.4`, '0')).rejects.toThrow(refused);
  });

  it('only admin writes admin roles and sessions, only identity blocks users; the gateway reads them and writes none', async () => {
    const sub = uniqueName('admin');
    await new Revocations(as('admin'), prefix).setAdminRoles(sub, ['super_admin']);
    await expect(new Revocations(as('catalog'), prefix).setAdminRoles(sub, ['super_admin'])).rejects.toThrow(refused);
    await expect(new Revocations(as('identity'), prefix).setAdminRoles(sub, ['super_admin'])).rejects.toThrow(refused);
    await expect(new Revocations(as('gateway'), prefix).openAdminSession(sub, 'sid', 60)).rejects.toThrow(refused);
    await expect(new Revocations(as('catalog'), prefix).unblockSubject('user', 'u')).rejects.toThrow(refused);
    await new Revocations(as('identity'), prefix).blockSubject('user', 'u-blocked');
    await expect(new Revocations(as('identity'), prefix).blockSubject('admin', sub)).rejects.toThrow(refused);

    const gateway = new Revocations(as('gateway'), prefix);
    expect((await gateway.adminSessionState(sub, 'no-session')).roles).toEqual(['super_admin']);
    expect(await gateway.sessionState('user', 'u-blocked', 'sid')).toBe('blocked');
    await as('gateway').set(`${prefix}rl:probe`, '1');
  });

  it('orders reads which users are blocked, and nothing else of the trusted keys, and writes none', async () => {
    await new Revocations(as('identity'), prefix).blockSubject('user', 'u-frozen');
    const orders = new Revocations(as('orders'), prefix);
    expect(await orders.subjectBlocked('user', 'u-frozen')).toBe(true);
    expect(await orders.subjectBlocked('user', 'u-free')).toBe(false);
    await expect(orders.subjectBlocked('admin', 'a')).rejects.toThrow(refused);
    await expect(orders.sessionState('user', 'u-frozen', 'sid')).rejects.toThrow(refused);
    await expect(orders.unblockSubject('user', 'u-frozen')).rejects.toThrow(refused);
    await expect(orders.blockSubject('user', 'u-free')).rejects.toThrow(refused);
  });

  it('no process may run the dangerous or administrative commands, nor use another prefix', async () => {
    // Each is harmless should the refusal fail: the shared Redis must survive a broken test.
    const harmless = [['FLUSHALL', 'NOT-A-MODE'], ['KEYS', `${uniqueName('nothing')}*`], ['CONFIG', 'GET', 'maxmemory'], ['ACL', 'LIST'], ['CLIENT', 'KILL', 'ID', '0']];
    for (const command of harmless) {
      await expect(as('admin').sendCommand(command)).rejects.toThrow(refused);
    }
    await expect(as('identity').set(`other:identity:x`, '1')).rejects.toThrow(refused);
    await expect(as('catalog').publish(`${prefix}auth:revocations`, JSON.stringify({ realm: 'user', sub: 'u' }))).rejects.toThrow(refused);
  });
});
