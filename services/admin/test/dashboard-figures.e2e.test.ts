import { createServer, type Server, type Socket } from 'node:net';
import { OrderStatus } from '@market/contracts';
import {
  api,
  LEDGER_BY_DAY_SQL,
  LEDGER_FIGURES_SQL,
  Market,
  type MarketCaller as Caller,
  ORDER_FIGURES_SQL,
  ORDERS_BY_DAY_SQL,
  type Stack,
  startMarket,
  startStack,
} from '@market/testkit';
import { DEV_BOOTSTRAP_PASSWORD } from '../src/config';
import { eventually, loginToken } from './helpers';

/** 3 hours at 800 fen and a 5000 deposit (the Market's listing): 7400 paid into escrow per order. */
const AMOUNT = 7400;
const NO_ORDERS = Object.fromEntries(OrderStatus.options.map((s) => [s, 0]));
/** Identity's and catalog's figures on a fresh stack: nobody but the first admin, no listing. */
const FRESH_PEOPLE_AND_LISTINGS = {
  users_total: 0,
  users_today: 0,
  users_frozen: 0,
  admins_total: 1,
  listings_by_status: { draft: 0, online: 0, offline: 0, abnormal: 0, deleted: 0 },
  listings_pending_review: 0,
};

/** "Today" figures are per UTC day: a test that straddles 00:00 UTC would compare two days. */
async function clearOfUtcMidnight() {
  const msToMidnight = 86_400_000 - (Date.now() % 86_400_000);
  // the clock is the subject: nothing in the system can signal that a day has turned
  if (msToMidnight < 90_000) await new Promise((resolve) => setTimeout(resolve, msToMidnight + 1000));
}

/** The 30 UTC days the series covers, oldest first, ending with today. */
function last30Days(): string[] {
  const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  return Array.from({ length: 30 }, (_, i) => new Date(today - (29 - i) * 86_400_000).toISOString().slice(0, 10));
}

type Day = { new_users: number | null; orders: number | null; gmv: number | null; recharges_amount: number | null; platform_fees: number | null };

/** The series expected: `other` on every day, `today` on the last. */
function series(other: Day, today: Day = other) {
  return last30Days().map((date, i) => ({ date, ...(i === 29 ? today : other) }));
}

const ZERO_DAY: Day = { new_users: 0, orders: 0, gmv: 0, recharges_amount: 0, platform_fees: 0 };

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: Math.round(performance.now() - started) };
}

describe('dashboard figures from identity, catalog, orders and wallet', () => {
  let stack: Stack;
  let market: Market;

  beforeAll(async () => {
    await clearOfUtcMidnight();
    stack = await startMarket({ services: ['identity', 'catalog', 'orders', 'wallet', 'admin'] });
    market = new Market(stack);
  }, 240_000);
  afterAll(() => stack?.stop());

  async function dashboard() {
    const res = await market.client.get('/api/admin/dashboard', await market.admin());
    expect(res.status).toBe(200);
    return res.body;
  }

  it('dashboard figures match what the test created', async () => {
    expect(await dashboard()).toEqual({
      ...FRESH_PEOPLE_AND_LISTINGS,
      orders_by_status: NO_ORDERS,
      orders_today: 0,
      disputes_open: 0,
      gmv_today: 0,
      gmv_last_7_days: 0,
      platform_revenue_today: 0,
      platform_revenue_last_7_days: 0,
      recharges_today_count: 0,
      recharges_today_amount: 0,
      last_30_days: series(ZERO_DAY),
      unavailable: [],
    });

    const owner = await market.user();
    const unpaidRenter = await market.user();
    const [payingRenter, finishingRenter, disputingRenter] = await Promise.all([
      market.fundedUser(10_000),
      market.fundedUser(12_000),
      market.fundedUser(15_000),
    ]);
    const frozen = await market.user();
    const freeze = await market.client.post(`/api/admin/users/${frozen.id}/freeze`, { reason: 'dashboard figures' }, await market.admin());
    expect(freeze.status).toBe(200);

    const listing = { title: 'Dashboard account', game: 'Test Game', hourly_price: 800, deposit: 5000 };
    expect((await market.client.post('/api/listings', listing, owner.token)).status).toBe(201);
    const submitted = await market.client.post('/api/listings', listing, owner.token);
    expect((await market.client.post(`/api/listings/${submitted.body.id}/submit-review`, {}, owner.token)).status).toBe(200);
    const online = await Promise.all([1, 2, 3, 4, 5].map(() => market.onlineListing(owner)));

    await market.order(unpaidRenter, online[0]!.id);
    const cancelled = await market.order(unpaidRenter, online[1]!.id);
    await market.act(cancelled.id, 'cancel', unpaidRenter);
    await market.act((await market.order(payingRenter, online[2]!.id)).id, 'pay', payingRenter);
    const finished = await inUse(finishingRenter, online[3]!.id);
    await market.act(finished, 'checkout', finishingRenter, { consumption: 1600 });
    await market.act(finished, 'checkout/confirm', owner);
    await eventually(() => market.platformFeeOf(finished), (fee) => fee === 80);
    const disputed = await inUse(disputingRenter, online[4]!.id);
    await market.act(disputed, 'checkout', disputingRenter, { consumption: 800 });
    await market.act(disputed, 'checkout/counter', owner, { deposit_deduction: 5000, reason: 'account banned' });
    await market.act(disputed, 'checkout/reject', disputingRenter, { reason: 'banned before I logged in' });

    async function inUse(renter: Caller, listingId: string): Promise<string> {
      const order = await market.order(renter, listingId);
      await market.act(order.id, 'pay', renter);
      await market.act(order.id, 'handoff', owner, { content: 'account 10001 / password hunter2' });
      await market.act(order.id, 'confirm-receive', renter);
      return order.id;
    }

    const { result: figures, ms } = await timed(dashboard);
    // Reported for the 200 ms target; the bound asserted is loose so a busy 2-core machine cannot fail it.
    console.info(`GET /api/admin/dashboard answered in ${ms} ms with the seeded data`);
    expect(ms).toBeLessThan(2000);
    expect(figures).toEqual({
      users_total: 6,
      users_today: 6,
      users_frozen: 1,
      admins_total: 1,
      listings_by_status: { draft: 2, online: 5, offline: 0, abnormal: 0, deleted: 0 },
      listings_pending_review: 1,
      orders_by_status: { ...NO_ORDERS, pending_payment: 1, cancelled: 1, pending_handoff: 1, completed: 1, disputed: 1 },
      orders_today: 5,
      disputes_open: 1,
      gmv_today: 3 * AMOUNT,
      gmv_last_7_days: 3 * AMOUNT,
      platform_revenue_today: 80,
      platform_revenue_last_7_days: 80,
      recharges_today_count: 3,
      recharges_today_amount: 10_000 + 12_000 + 15_000,
      last_30_days: series(ZERO_DAY, { new_users: 6, orders: 5, gmv: 3 * AMOUNT, recharges_amount: 10_000 + 12_000 + 15_000, platform_fees: 80 }),
      unavailable: [],
    });
  });

  it('reads the orders and ledger figures from indexes, never scanning a table', async () => {
    const plans = [
      [stack.services.orders!.ctx.db, ORDER_FIGURES_SQL, ['orders_by_status', 'orders_created', 'disputes_one_open_per_order']],
      [stack.services.wallet!.ctx.db, LEDGER_FIGURES_SQL, ['transfers_by_type_time']],
      [stack.services.orders!.ctx.db, ORDERS_BY_DAY_SQL, ['orders_created']],
      [stack.services.wallet!.ctx.db, LEDGER_BY_DAY_SQL, ['transfers_by_type_time']],
    ] as const;
    for (const [db, sql, indexes] of plans) {
      const plan = await db.transaction(async (manager) => {
        // The tables are tiny here, so the planner would rightly scan them; forbidding scans shows an index can answer.
        await manager.query('SET LOCAL enable_seqscan = off');
        const [row] = await manager.query(`EXPLAIN (FORMAT JSON) ${sql}`);
        return JSON.stringify(row['QUERY PLAN']);
      });
      expect(plan).not.toContain('Seq Scan');
      for (const index of indexes) expect(plan).toContain(`"Index Name":"${index}"`);
    }
  });
});

describe('dashboard while a service is down or hung', () => {
  let stack: Stack;
  let hung: Server;
  const held: Socket[] = [];

  beforeAll(async () => {
    // Accepts the connection and never answers: what a stalled orders looks like to admin.
    hung = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const port = (hung.address() as { port: number }).port;
    stack = await startStack({
      services: ['admin', 'identity', 'catalog'],
      serviceEnv: { admin: { ORDERS_URL: `http://127.0.0.1:${port}` } },
    });
  }, 120_000);
  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    hung?.close();
    await stack?.stop();
  });

  it('answers within the bound with the figures it has, the missing ones null and their services named', async () => {
    const client = api(stack.url);
    const token = await loginToken(client, 'admin', DEV_BOOTSTRAP_PASSWORD);
    const { result: res, ms } = await timed(() => client.get('/api/admin/dashboard', token));
    console.info(`GET /api/admin/dashboard answered in ${ms} ms with orders hung and wallet down`);
    expect(res.status).toBe(200);
    expect(ms).toBeLessThan(2000);
    expect(res.body).toEqual({
      ...FRESH_PEOPLE_AND_LISTINGS,
      orders_by_status: null,
      orders_today: null,
      disputes_open: null,
      gmv_today: null,
      gmv_last_7_days: null,
      platform_revenue_today: null,
      platform_revenue_last_7_days: null,
      recharges_today_count: null,
      recharges_today_amount: null,
      last_30_days: series({ new_users: 0, orders: null, gmv: null, recharges_amount: null, platform_fees: null }),
      unavailable: ['orders', 'wallet'],
    });
    expect(held.length).toBeGreaterThan(0);
  });
});
