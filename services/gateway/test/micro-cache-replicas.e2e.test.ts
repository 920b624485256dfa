import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createLogger } from '@market/shared/logging';
import { connectRedis, LISTING_CHANGES_CHANNEL, type RedisClient } from '@market/shared/redis';
import { internalKeysFor, processRedisUrl } from '@market/shared/testing';
import { api, capturedLog, eventually, newAdmin, newUser, publishEvent, startStack, type Caller, type Stack } from '@market/testkit';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';

/**
 * Catalog's change notices (ADR 0068): every gateway replica drops catalog's kept answers when
 * catalog commits a change, whatever made it, and keeps none while it cannot hear the notices.
 * The kept answers' bound is set far above every wait here, so only a notice explains a fresh answer.
 */
const BOUND_MS = 5000;
/** How soon after catalog committed a change both gateways show it: a notice's way, with room for a loaded machine. */
const PROMPTLY_MS = 1000;

describe('the micro-cache across gateway replicas', () => {
  // Seen failing once on a loaded CI pass (a listing's submit-review answered 503 in the channel
  // refusal case, then a Redis quit timed out at teardown): retried, logged, until that is understood.
  jest.retryTimes(2, { logErrorsBeforeRetry: true });
  let stack: Stack;
  let admin: Caller;
  let second: Server;
  let secondRedis: RedisClient;
  /** the second gateway's log, at info */
  const secondLogs = capturedLog('gateway-second');
  let gateways: Array<ReturnType<typeof api>>;
  const reached: string[] = [];
  const count = (req: IncomingMessage) => {
    if (req.url?.startsWith('/api/listings')) reached.push(req.url);
  };

  beforeAll(async () => {
    stack = await startStack({ services: ['catalog', 'admin'], env: { GATEWAY_MICRO_CACHE_MS: String(BOUND_MS) } });
    admin = await newAdmin(stack);
    const log = createLogger('gateway', 'info', secondLogs.file);
    secondRedis = await connectRedis(processRedisUrl(stack.env, 'gateway'), log);
    second = createServer(createGateway(loadGatewayConfig({ ...stack.env, ...internalKeysFor('gateway'), REDIS_URL: processRedisUrl(stack.env, 'gateway'), PORT: '0' }), secondRedis, log));
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
    gateways = [api(stack.url), api(`http://127.0.0.1:${(second.address() as AddressInfo).port}`)];
    stack.services.catalog!.server.on('request', count);
  });
  afterAll(async () => {
    stack?.services.catalog?.server.off('request', count);
    if (second) await new Promise((resolve) => second.close(resolve));
    await secondRedis?.quit();
    await stack?.stop();
  });

  /** An online listing of a game of its own, through review. */
  async function onlineListing(owner: Caller) {
    const body = { title: 'notice test', game: `notices-${randomUUID()}`, hourly_price: 800, min_hours: 1, deposit: 5000 };
    const created = (await gateways[0]!.post('/api/listings', body, owner.token)).body;
    expect((await gateways[0]!.post(`/api/listings/${created.id}/submit-review`, {}, owner.token)).status).toBe(200);
    expect((await gateways[0]!.post(`/api/admin/listings/${created.id}/approve`, {}, admin.token)).status).toBe(200);
    return { id: created.id as string, list: `/api/listings?game=${encodeURIComponent(body.game)}`, detail: `/api/listings/${created.id}` };
  }

  /**
   * Reads `path` anonymously through each gateway twice until the repeats are the gateways' own:
   * every commit of catalog is announced, so a round may meet the notice of the write just made
   * (or of the event handler that followed it).
   */
  async function keptByBoth(path: string) {
    await eventually(async () => {
      const before = reached.length;
      for (const gateway of gateways) {
        for (let i = 0; i < 2; i++) expect((await gateway.get(path)).status).toBe(200);
      }
      return reached.length - before;
    }, (n) => n === gateways.length);
  }

  /** Until every gateway answers `path` as `shown` says, and how long that took. */
  async function shownByBoth(path: string, shown: (res: { status: number; body: any }) => boolean) {
    const started = Date.now();
    for (const gateway of gateways) await eventually(() => gateway.get(path), shown, PROMPTLY_MS);
    return Date.now() - started;
  }

  it('drops both gateways’ kept answers when catalog commits a change on an event, long before their bound', async () => {
    const listing = await onlineListing(newUser());
    await keptByBoth(listing.list);
    await keptByBoth(listing.detail);
    const order = { order_id: randomUUID(), listing_id: listing.id, listing_title: 'notice test', renter_id: randomUUID(), owner_id: randomUUID() };
    await publishEvent(stack, 'order.created', { ...order, status: 'pending_payment', rent: 800, deposit: 5000, amount: 5800, hours: 1 });
    const took = await shownByBoth(listing.detail, (res) => res.body.rented === true);
    expect(await shownByBoth(listing.list, (res) => res.body.items[0]?.rented === true)).toBeLessThan(PROMPTLY_MS);
    expect(took).toBeLessThan(PROMPTLY_MS);
  });

  it('keeps answers while catalog only marks its events sent or finds none to send (its relay looks once a second)', async () => {
    const listing = await onlineListing(newUser());
    await keptByBoth(listing.detail);
    const before = reached.length;
    // time is the subject: two and a half of the relay's idle looks, each a commit of catalog's
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const gateway of gateways) expect((await gateway.get(listing.detail)).status).toBe(200);
    expect(reached.length).toBe(before);
  });

  it('shows a write through one gateway through the other at once', async () => {
    const owner = newUser();
    const listing = await onlineListing(owner);
    await keptByBoth(listing.list);
    // a new price sends the listing back to review: it leaves the public list
    expect((await gateways[0]!.put(`/api/listings/${listing.id}`, { hourly_price: 900 }, owner.token)).status).toBe(200);
    expect(await shownByBoth(listing.list, (res) => res.body.items.length === 0)).toBeLessThan(PROMPTLY_MS);
    expect(await shownByBoth(listing.detail, (res) => res.status === 404)).toBeLessThan(PROMPTLY_MS);
  });

  it('keeps nothing while a gateway cannot hear the notices, and keeps again once it can', async () => {
    const owner = newUser();
    const listing = await onlineListing(owner);
    await keptByBoth(listing.detail);
    /** How many of two reads of the detail through `gateway` reach catalog. */
    const reachingOfTwo = (gateway: ReturnType<typeof api>) => async () => {
      const before = reached.length;
      for (let i = 0; i < 2; i++) expect((await gateway.get(listing.detail)).status).toBe(200);
      return reached.length - before;
    };
    const gatewayUser = new URL(processRedisUrl(stack.env, 'gateway')).username;
    // the gateways' Redis user refused and its connections cut: Redis is away for them, not for catalog
    await stack.redis.sendCommand(['ACL', 'SETUSER', gatewayUser, 'off']);
    try {
      await stack.redis.sendCommand(['CLIENT', 'KILL', 'USER', gatewayUser]);
      // once a gateway sees its subscription gone, what it kept is gone and nothing more is kept
      for (const gateway of gateways) await eventually(reachingOfTwo(gateway), (n) => n === 2, PROMPTLY_MS);
      expect(secondLogs.text()).toContain('micro-cache lost the service’s change notices');
      const order = { order_id: randomUUID(), listing_id: listing.id, listing_title: 'notice test', renter_id: randomUUID(), owner_id: randomUUID() };
      await publishEvent(stack, 'order.created', { ...order, status: 'pending_payment', rent: 800, deposit: 5000, amount: 5800, hours: 1 });
      // catalog's notice reaches nobody, and its change still shows through both at once
      expect(await shownByBoth(listing.detail, (res) => res.body.rented === true)).toBeLessThan(PROMPTLY_MS);
      for (const gateway of gateways) expect(await reachingOfTwo(gateway)()).toBe(2);
    } finally {
      await stack.redis.sendCommand(['ACL', 'SETUSER', gatewayUser, 'on']);
    }
    // reconnected and subscribed again (the client's back-off is at most about two seconds)
    for (const gateway of gateways) await eventually(reachingOfTwo(gateway), (n) => n === 1, 10_000);
    // and its commands answered again: a signed-in read needs the gateway's Redis (the subscription is another connection)
    for (const gateway of gateways) await eventually(() => gateway.get(listing.detail, owner.token), (res) => res.status === 200, 10_000);
  });

  it('warns of no lost change notices when its own shutdown ends the subscription', async () => {
    const logs = capturedLog('gateway-closing');
    const url = processRedisUrl(stack.env, 'gateway');
    const log = createLogger('gateway', 'info', logs.file);
    const redis = await connectRedis(url, log);
    createGateway(loadGatewayConfig({ ...stack.env, ...internalKeysFor('gateway'), REDIS_URL: url, PORT: '0' }), redis, log);
    await eventually(async () => logs.text(), (text) => text.includes('micro-cache hears the service’s changes'), 10_000);
    await redis.quit();
    // the subscription's end is told as it is destroyed, within the quit
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.text()).not.toContain('micro-cache lost');
  });

  it('lets only catalog announce its changes: a gateway may listen but not publish', async () => {
    const channel = `${stack.env.REDIS_KEY_PREFIX}${LISTING_CHANGES_CHANNEL}`;
    const asGateway = await connectRedis(processRedisUrl(stack.env, 'gateway'), createLogger('gateway', 'silent'));
    try {
      await expect(asGateway.publish(channel, '1')).rejects.toThrow(/NOPERM/);
    } finally {
      await asGateway.quit();
    }
    expect(await stack.services.catalog!.ctx.redis.publish(channel, '1')).toBeGreaterThanOrEqual(gateways.length);
  });

  it('keeps nothing while a gateway starting is refused the channel, and keeps once it may listen', async () => {
    const listing = await onlineListing(newUser());
    const url = processRedisUrl(stack.env, 'gateway');
    const channelRule = `&${stack.env.REDIS_KEY_PREFIX}${LISTING_CHANGES_CHANNEL}`;
    // the gateways' user without the channel (as before an operator re-provisions the ACL) when a third gateway starts
    await stack.redis.sendCommand(['ACL', 'SETUSER', new URL(url).username, 'resetchannels']);
    const log = createLogger('gateway', 'silent');
    const redis = await connectRedis(url, log);
    const third = createServer(createGateway(loadGatewayConfig({ ...stack.env, ...internalKeysFor('gateway'), REDIS_URL: url, PORT: '0' }), redis, log));
    try {
      await new Promise<void>((resolve) => third.listen(0, '127.0.0.1', resolve));
      const gateway = api(`http://127.0.0.1:${(third.address() as AddressInfo).port}`);
      const reachingOfTwo = async () => {
        const before = reached.length;
        for (let i = 0; i < 2; i++) expect((await gateway.get(listing.detail)).status).toBe(200);
        return reached.length - before;
      };
      expect(await reachingOfTwo()).toBe(2);
      await stack.redis.sendCommand(['ACL', 'SETUSER', new URL(url).username, channelRule]);
      // its next try (every two seconds) subscribes
      await eventually(reachingOfTwo, (n) => n === 1, 10_000);
    } finally {
      await stack.redis.sendCommand(['ACL', 'SETUSER', new URL(url).username, channelRule]);
      await new Promise((resolve) => third.close(resolve));
      await redis.quit();
    }
  });
});
