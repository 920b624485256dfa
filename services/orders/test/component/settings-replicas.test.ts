import { v7 as uuidv7 } from 'uuid';
import { createOrder } from '@market/contracts';
import { startService, type RunningService } from '@market/shared/service';
import { serviceEnv } from '@market/shared/testing';
import { asUser, DEFINITIONS, directCaller, eventually, startComponent, type Component } from '@market/testkit';
import { SettingsCache, settingsChannel } from '../../src/application/settings-cache';
import { Neighbourhood } from './fixtures';

/** What a change may take to reach every replica here: its commit's notification, on a loaded machine. */
const BOUND_MS = 2000;

/**
 * Two replicas of orders on one schema, each keeping the settings it read (ADR 0068): a change
 * handled by either is in force on both within milliseconds of its commit, though neither would
 * read the table again for a minute on its own (`ORDER_SETTINGS_MAX_AGE_MS`).
 */
describe('orders’ settings kept by each replica', () => {
  let orders: Component;
  let second: RunningService;
  const world = new Neighbourhood();
  // a configured minute is a second: the payment timeout of an order is its deadline in seconds
  const env = { ORDER_MINUTE_MS: '1000', ORDER_SETTINGS_MAX_AGE_MS: '60000' };

  beforeAll(async () => {
    orders = await startComponent('orders', { answers: world.answers(), env });
    second = await startService(DEFINITIONS.orders, {
      ...serviceEnv(orders.env, 'orders'),
      ...env,
      DB_SCHEMA: orders.service.ctx.schema,
      PORT: '0',
    });
  });
  afterEach(() => orders.verify());
  afterAll(async () => {
    await second?.stop();
    await orders?.stop();
  });

  /** The payment timeout an order created now on the replica at `url` gets, in configured minutes. */
  async function paymentTimeout(url: string): Promise<number> {
    const owner = asUser();
    const order = await directCaller(url).ok(createOrder, { body: { listing_id: world.listing(owner.sub).id, hours: 1 }, as: asUser() });
    return (Date.parse(order.deadline_at!) - Date.parse(order.created_at)) / 1000;
  }

  async function storedValue(key: string): Promise<unknown> {
    const rows: Array<{ value: unknown }> = await orders.service.ctx.db.query(`SELECT value FROM system_settings WHERE key = $1`, [key]);
    return rows[0]?.value;
  }

  it('puts a change in force on both replicas as soon as it is stored, whichever replica handled it', async () => {
    const replicas = [orders.url, second.url];
    // both have read (and keep) the default of 15
    expect(await Promise.all(replicas.map(paymentTimeout))).toEqual([15, 15]);

    for (const minutes of [2, 7]) {
      await orders.publish('system_config.changed', { key: 'order.payment_timeout_minutes', value: minutes, updated_by: uuidv7(), updated_at: new Date().toISOString() });
      await eventually(() => storedValue('order.payment_timeout_minutes'), (value) => value === minutes);
      const stored = Date.now();
      const seen = await eventually(() => Promise.all(replicas.map(paymentTimeout)), (timeouts) => timeouts.every((t) => t === minutes), BOUND_MS);
      expect(seen).toEqual([minutes, minutes]);
      expect(Date.now() - stored).toBeLessThan(BOUND_MS);
    }
  });

  it('keeps what it read only while it listens, and never longer than the maximum age', async () => {
    const db = orders.service.ctx.db;
    // the cache's own clock, moved by the test: the bound is 500 ms of it
    let now = 0;
    const cache = new SettingsCache(settingsChannel(orders.service.ctx.schema), 500, () => now);
    const realname = async () => (await cache.current(db))['order.require_realname'];
    const store = (value: boolean) =>
      db.query(`UPDATE system_settings SET value = $1::jsonb WHERE key = 'order.require_realname'`, [JSON.stringify(value)]);
    await orders.publish('system_config.changed', { key: 'order.require_realname', value: false, updated_by: uuidv7(), updated_at: new Date().toISOString() });
    await eventually(() => storedValue('order.require_realname'), (value) => value === false);

    // not listening: every use reads the table
    await store(true);
    expect(await realname()).toBe(true);
    await store(false);
    expect(await realname()).toBe(false);

    // listening: a change that told nobody (a lost notification) shows once what was kept reaches the bound
    cache.listeningChanged(true);
    expect(await realname()).toBe(false);
    await store(true);
    now = 499;
    expect(await realname()).toBe(false);
    now = 500;
    expect(await realname()).toBe(true);
    // a notification drops what was kept at once
    await store(false);
    expect(await realname()).toBe(true);
    cache.changed();
    expect(await realname()).toBe(false);
    // so does losing the listener, after which nothing is kept
    await store(true);
    cache.listeningChanged(false);
    expect(await realname()).toBe(true);
    await store(false);
    expect(await realname()).toBe(false);
  });
});
