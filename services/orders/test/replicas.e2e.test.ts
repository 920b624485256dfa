import { execFile } from 'node:child_process';
import path from 'node:path';
import { eventually, Market, type MarketCaller as Caller, type Stack, startMarket } from '@market/testkit';

const WALLET_DIR = path.resolve(__dirname, '../../wallet');
const THRESHOLDS = ['order.payment_timeout_minutes', 'order.handoff_timeout_minutes', 'order.receive_timeout_minutes'];
const PAIRS = 6;

/** `npm run wallet:verify`'s program, from its sources, on the stack's wallet schema: exit code and output. */
function walletVerify(stack: Stack): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), 'src/verify-main.ts'],
      {
        cwd: WALLET_DIR,
        env: { PATH: process.env.PATH, DATABASE_URL: String(stack.env.DATABASE_URL), DB_SCHEMA: stack.services.wallet!.ctx.schema },
        timeout: 60_000,
      },
      (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

/**
 * Two processes of orders and two of wallet on one schema each, behind a gateway that takes them in
 * turn: every process runs its own timeout scan, outbox relay and event consumer. Racing moves land
 * on different replicas and still have one winner; every timeout fires once; every settlement is
 * applied once; the ledger checks clean.
 */
describe('two replicas of orders and of wallet', () => {
  let stack: Stack;
  let market: Market;

  beforeAll(async () => {
    stack = await startMarket({ orders: { ORDER_MINUTE_MS: '1000', ORDER_SCAN_INTERVAL_MS: '200' }, replicas: { orders: 2, wallet: 2 } });
    market = new Market(stack);
    for (const key of THRESHOLDS) await market.setConfig(key, 600);
  }, 90_000);
  afterAll(() => stack?.stop());

  async function pairs(n: number) {
    return Promise.all(
      Array.from({ length: n }, async () => {
        const owner = await market.user();
        const renter = await market.fundedUser(20_000);
        const listing = await market.onlineListing(owner);
        return { owner, renter, listing };
      }),
    );
  }

  /** Sends the same move twice at once (the gateway gives the two to different replicas): the statuses, sorted. */
  async function race(orderId: string, action: string, party: Caller, body: unknown = {}) {
    const answers = await Promise.all([0, 1].map(() => market.client.post(`/api/orders/${orderId}/${action}`, body, party.token)));
    return answers.map((a) => a.status).sort();
  }

  it('runs both replicas of each', () => {
    expect(stack.replicas.orders).toHaveLength(2);
    expect(stack.replicas.wallet).toHaveLength(2);
    expect(new Set(stack.replicas.orders!.map((r) => r.ctx.schema)).size).toBe(1);
  });

  it('gives each racing pay and checkout confirmation one winner, charges once and settles once', async () => {
    const parties = await pairs(PAIRS);
    const orders = await Promise.all(parties.map((p) => market.order(p.renter, p.listing.id, 2)));

    const pays = await Promise.all(orders.map((order, i) => race(order.id, 'pay', parties[i]!.renter)));
    for (const statuses of pays) expect(statuses).toEqual([200, 409]);
    for (const [i, order] of orders.entries()) {
      expect(await market.balance(parties[i]!.renter)).toEqual(expect.objectContaining({ available: 20_000 - order.amount, frozen: order.amount }));
    }

    await Promise.all(
      orders.map(async (order, i) => {
        const { owner, renter } = parties[i]!;
        await market.act(order.id, 'handoff', owner, { content: `account ${i}` });
        await market.act(order.id, 'confirm-receive', renter);
        await market.act(order.id, 'checkout', renter, { consumption: 1600 });
      }),
    );
    const confirms = await Promise.all(orders.map((order, i) => race(order.id, 'checkout/confirm', parties[i]!.owner)));
    for (const statuses of confirms) expect(statuses).toEqual([200, 409]);

    // both wallet replicas consume wallet's one queue: each settlement is applied once
    for (const [i, order] of orders.entries()) {
      await eventually(() => market.balance(parties[i]!.owner), (b) => b.available === 1520, 15_000);
      await eventually(() => market.balance(parties[i]!.renter), (b) => b.available === 20_000 - 1600 && b.frozen === 0, 15_000);
      expect(await market.platformFeeOf(order.id)).toBe(80);
      expect(await market.ordersEvents('order.completed', order.id)).toHaveLength(1);
    }

    // the work was shared: each orders replica served some of the moves
    for (const replica of stack.replicas.orders!) {
      const text = await (await fetch(`${replica.url}/metrics`)).text();
      expect(text).toMatch(/market_http_request_duration_seconds_count\{[^}]*route="payOrder"[^}]*\} [1-9]/);
    }
  }, 120_000);

  it('fires every payment timeout once although both replicas scan', async () => {
    const parties = await pairs(PAIRS);
    const orders = await Promise.all(parties.map((p) => market.order(p.renter, p.listing.id, 1)));
    await market.setConfig('order.payment_timeout_minutes', 1);
    try {
      for (const [i, order] of orders.entries()) {
        await eventually(async () => (await market.client.get(`/api/orders/${order.id}`, parties[i]!.renter.token)).body.status, (s) => s === 'cancelled', 15_000);
      }
    } finally {
      await market.setConfig('order.payment_timeout_minutes', 600);
    }
    // a few more scans of both replicas pass over them
    await new Promise((resolve) => setTimeout(resolve, 600));
    for (const order of orders) expect(await market.ordersEvents('order.cancelled', order.id)).toHaveLength(1);
    const audits = await stack.services.orders!.ctx.db.query(
      `SELECT payload->'data'->>'biz_id' AS id, count(*)::int AS n FROM outbox WHERE type = 'audit.recorded' AND payload->'data'->>'action' = 'order.timeout'
         AND payload->'data'->>'biz_id' = ANY($1) GROUP BY 1`,
      [orders.map((o) => o.id)],
    );
    expect(audits.map((a: { n: number }) => a.n)).toEqual(orders.map(() => 1));
  }, 90_000);

  it('reminds of each rental’s end once although both replicas look (ADR 0065)', async () => {
    const parties = await pairs(PAIRS);
    const orders = await Promise.all(
      parties.map(async (p) => {
        const order = await market.order(p.renter, p.listing.id, 1);
        await market.act(order.id, 'pay', p.renter);
        await market.act(order.id, 'handoff', p.owner, { content: 'account 10001 / password hunter2' });
        await market.act(order.id, 'confirm-receive', p.renter);
        return order;
      }),
    );
    // time passing: each rental now ends within the reminder's ten (one-second) minutes
    await stack.services.orders!.ctx.db.query(`UPDATE orders SET ends_at = now() + interval '5 seconds' WHERE id = ANY($1)`, [orders.map((o) => o.id)]);
    for (const order of orders) await eventually(() => market.ordersEvents('order.ending_soon', order.id), (events) => events.length > 0, 15_000);
    // a few more scans of both replicas pass over them (what is asserted is that nothing more happens)
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const order of orders) expect(await market.ordersEvents('order.ending_soon', order.id)).toHaveLength(1);
  }, 90_000);

  it('leaves a ledger wallet:verify finds clean', async () => {
    const { code, stdout } = await walletVerify(stack);
    expect(JSON.parse(stdout)).toMatchObject({ schema: stack.services.wallet!.ctx.schema, differences: [] });
    expect(JSON.parse(stdout).checks).toBeGreaterThan(0);
    expect(code).toBe(0);
  }, 60_000);
});
