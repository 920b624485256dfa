import { Client } from 'pg';
import { orderChargeStatus } from '@market/contracts';
import { eventually, freePort, internalClientAs, Market, type MarketCaller as Caller, outboxEvents, serviceProcess, type ServiceProcess, type Stack, startMarket, tcpProxy, type TcpProxy, verifyMoney } from '@market/testkit';
import { serviceEnv } from '@market/shared/testing';
import { startService, type RunningService } from '@market/shared/service';
import { ordersService } from '../src/service';

const HOURS = 2;
const ORDERS_ENV = { ORDER_CHARGE_WINDOW_MS: '2000', ORDER_RECONCILE_INTERVAL_MS: '200' };
const AMOUNT = 800 * HOURS + 5000;

/**
 * Pay with the wallet as a real process behind a TCP proxy (ADR 0028): killed with SIGKILL in the
 * middle of pays and restarted, or answering only after the pay has given up. Whatever happened,
 * once the charge reconciler has asked the wallet every order is paid with exactly one charge of
 * its amount, or unpaid with none.
 */
describe('pay when the wallet dies or answers too late', () => {
  let stack: Stack;
  let market: Market;
  let wallet: ServiceProcess;
  let proxy: TcpProxy;
  /** between orders and catalog only: the gateway and the test reach catalog directly */
  let catalogProxy: TcpProxy;
  let owner: Caller;
  /** a second orders replica on the same schema: the reconcilers of both run together */
  let replica: RunningService<any>;

  beforeAll(async () => {
    const walletPort = await freePort();
    proxy = await tcpProxy(walletPort);
    catalogProxy = await tcpProxy(() => Number(new URL(stack.services.catalog!.url).port));
    wallet = serviceProcess('wallet', walletPort, () => stack.env);
    stack = await startMarket({
      services: ['identity', 'catalog', 'orders', 'files', 'admin'],
      external: { wallet: proxy.url },
      orders: { ...ORDERS_ENV, CATALOG_URL: catalogProxy.url },
    });
    await wallet.start();
    replica = await startService(ordersService, { ...serviceEnv(stack.env, 'orders'), ...ORDERS_ENV, DB_SCHEMA: stack.services.orders!.ctx.schema, PORT: '0' });
    market = new Market(stack);
    await market.admin();
    owner = await market.user();
  }, 90_000);

  afterAll(async () => {
    await replica?.stop();
    // the wallet process before the stack: the stack's stop deletes the broker users it logs in with
    await wallet.stop();
    await stack.stop();
    await proxy.close();
    await catalogProxy.close();
  }, 60_000);

  /** One unpaid order each for renters funded with `funds` (too little for some on purpose). */
  async function unpaidOrders(funds: number[], credentials?: string) {
    return Promise.all(
      funds.map(async (amount) => {
        const renter = amount > 0 ? await market.fundedUser(amount) : await market.user();
        const listing = await market.onlineListing(owner, credentials ? { credentials } : {});
        const order = await market.order(renter, listing.id, HOURS);
        return { renter, order, funded: amount };
      }),
    );
  }

  const ordersDb = () => stack.services.orders!.ctx.db;

  async function chargeRequestsOpen(ids: string[]): Promise<number> {
    const [row] = await ordersDb().query(`SELECT count(*)::int AS n FROM orders WHERE id = ANY($1::uuid[]) AND charge_deadline_at IS NOT NULL`, [ids]);
    return row.n;
  }

  /** Every order paid with exactly one charge of its amount, or unpaid with none and nothing frozen. */
  async function expectConverged(orders: Array<{ renter: Caller; order: { id: string; amount: number }; funded: number }>) {
    const ids = orders.map((o) => o.order.id);
    await eventually(() => chargeRequestsOpen(ids), (open) => open === 0, 40_000);
    const wallet = internalClientAs(stack, 'orders');
    const outcome = { paid: 0, unpaid: 0 };
    for (const { renter, order, funded } of orders) {
      const status = await market.status(order.id, renter);
      const charge = await wallet.call(orderChargeStatus, { params: { id: order.id } });
      const balance = await market.balance(renter);
      if (status === 'pending_payment') {
        expect(charge).toMatchObject({ status: 'not_charged', charge: null });
        expect(balance).toMatchObject({ available: funded, frozen: 0 });
        outcome.unpaid += 1;
      } else {
        expect(['pending_handoff', 'pending_receive']).toContain(status);
        expect(charge).toMatchObject({ status: 'charged', charge: { amount: order.amount, renter_id: renter.id } });
        expect(balance).toMatchObject({ available: funded - order.amount, frozen: order.amount });
        outcome.paid += 1;
      }
    }
    const paidEvents = (await outboxEvents(stack, 'orders', 'order.paid')).filter((e) => ids.includes(e.data.order_id));
    expect(paidEvents).toHaveLength(outcome.paid);
    return outcome;
  }

  const pay = (renter: Caller, id: string) => market.client.post(`/api/orders/${id}/pay`, {}, renter.token);

  it('settles every order after the wallet answers only once the pays have given up', async () => {
    const orders = await unpaidOrders([AMOUNT, AMOUNT, AMOUNT, 1000, AMOUNT, 1000], 'QQ 1 / pw held');
    proxy.setMode('hold');
    const answers = await Promise.all(orders.map(({ renter, order }) => pay(renter, order.id)));
    expect(answers.map((a) => a.status)).toEqual(orders.map(() => 503));
    // the wallet did its work; orders does not know the outcome and does not guess
    expect(await chargeRequestsOpen(orders.map((o) => o.order.id))).toBe(orders.length);
    proxy.setMode('pass');
    const outcome = await expectConverged(orders);
    expect(outcome).toEqual({ paid: 4, unpaid: 2 });
    // two replicas reconciled together: each unpaid order was settled once
    const notMade = (await outboxEvents(stack, 'orders', 'audit.recorded')).filter((e) => e.data.action === 'order.charge_not_made');
    expect(notMade.map((e) => e.data.biz_id).sort()).toEqual(orders.filter((o) => o.funded === 1000).map((o) => o.order.id).sort());
    // a charge found by the reconciler continues into the stored-credentials handoff
    for (const { renter, order, funded } of orders) {
      if (funded === AMOUNT) expect(await market.status(order.id, renter)).toBe('pending_receive');
    }
    // an order left unpaid can be paid again, once
    const retry = orders.find((o) => o.funded === 1000)!;
    await market.fund(retry.renter, AMOUNT);
    expect((await pay(retry.renter, retry.order.id)).status).toBe(200);
  }, 120_000);

  it('settles every order after the wallet is killed with -9 in the middle of pays and restarted', async () => {
    const orders = await unpaidOrders(Array.from({ length: 10 }, () => AMOUNT));
    const committed = orders.slice(0, 5);
    const inFlight = orders.slice(5);
    // The first five charges commit but their answers are kept back ...
    proxy.setMode('hold');
    const answers = committed.map(({ renter, order }) => pay(renter, order.id));
    const locker = new Client({ connectionString: String(stack.env.DATABASE_URL) });
    await locker.connect();
    try {
      await eventually(
        async () => (await locker.query(`SELECT count(*)::int AS n FROM "${wallet.schema}".order_escrows WHERE order_id = ANY($1::uuid[])`, [committed.map((o) => o.order.id)])).rows[0].n,
        (n) => n === committed.length,
      );
      // ... the next five are inside the wallet's transactions, waiting on its escrow table, ...
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${wallet.schema}".order_escrows IN EXCLUSIVE MODE`);
      answers.push(...inFlight.map(({ renter, order }) => pay(renter, order.id)));
      await eventually(
        async () => (await locker.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = '"${wallet.schema}".order_escrows'::regclass`)).rows[0].n,
        (n) => n === inFlight.length,
      );
      // ... when the wallet dies, and the answers it had sent are lost with it.
      await wallet.kill();
      proxy.setMode('cut');
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    proxy.setMode('pass');
    const statuses = (await Promise.all(answers)).map((a) => a.status);
    expect(statuses).toEqual(orders.map(() => 503));
    await wallet.start();
    const outcome = await expectConverged(orders);
    expect(outcome).toEqual({ paid: committed.length, unpaid: inFlight.length });
    for (const { order, renter } of committed) expect(await market.status(order.id, renter)).toBe('pending_handoff');
  }, 120_000);

  it('pays normally again through the restarted wallet, and a repeated pay is refused without a second charge', async () => {
    const [one] = await unpaidOrders([AMOUNT]);
    const [first, second] = await Promise.all([pay(one!.renter, one!.order.id), pay(one!.renter, one!.order.id)]);
    expect([first!.status, second!.status].sort()).toEqual([200, 409]);
    await expectConverged([one!]);
  }, 60_000);

  it('opens the stored credentials only after the charge: a refused pay writes no credentials audit entry', async () => {
    const [poor] = await unpaidOrders([1000], 'QQ 2 / pw closed');
    const refused = await pay(poor!.renter, poor!.order.id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('INSUFFICIENT_BALANCE');
    const catalogAudits = async () =>
      (await outboxEvents(stack, 'catalog', 'audit.recorded')).filter((e) => e.data.action === 'listing.credentials.open' && e.data.biz_id === poor!.order.listing_id);
    expect(await catalogAudits()).toHaveLength(0);
    await market.fund(poor!.renter, AMOUNT);
    expect((await pay(poor!.renter, poor!.order.id)).body.status).toBe('pending_receive');
    expect(await catalogAudits()).toHaveLength(1);
  }, 60_000);

  it('keeps a payment made while the catalog is down and hands the stored credentials over once it answers', async () => {
    const [one] = await unpaidOrders([AMOUNT], 'QQ 3 / pw later');
    catalogProxy.setMode('cut');
    let paid;
    try {
      paid = await pay(one!.renter, one!.order.id);
    } finally {
      catalogProxy.setMode('pass');
    }
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('pending_handoff');
    await eventually(() => market.status(one!.order.id, one!.renter), (status) => status === 'pending_receive', 20_000);
    const records = await market.client.get(`/api/orders/${one!.order.id}/handoff-records`, one!.renter.token);
    expect(records.body.items).toEqual([expect.objectContaining({ author_role: 'owner', content: 'QQ 3 / pw later' })]);
  }, 60_000);

  it('leaves orders and wallet in agreement after the kill and the stall (money:verify)', async () => {
    const admin = internalClientAs(stack, 'admin');
    await eventually(() => verifyMoney(admin, 600_000), (found) => found.mismatches.length === 0 && found.ledger.differences.length === 0, 20_000);
  }, 30_000);
});
