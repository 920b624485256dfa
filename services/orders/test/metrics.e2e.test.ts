import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually, marketPerSuite, type MarketCaller } from '@market/testkit';

/** One sample's value from a Prometheus text exposition, by metric name and exact labels (the `service` label aside). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    delete found.service;
    if (Object.keys(labels).length === Object.keys(found).length && Object.entries(labels).every(([k, v]) => found[k] === v)) {
      return Number(match[3]);
    }
  }
  return undefined;
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

describe('Prometheus metrics of the services and the gateway, after real requests', () => {
  const own = marketPerSuite({ services: ['identity', 'catalog', 'orders', 'wallet', 'files', 'admin', 'notify'] }, 60_000);

  /** `renter`'s order of a new listing of `owner`, paid, handed over, received and checked out having used `consumption`. */
  async function checkedOut(owner: MarketCaller, renter: MarketCaller, hours: number, content: string, consumption: number) {
    const { market } = own;
    const listing = await market.onlineListing(owner);
    const order = await market.order(renter, listing.id, hours);
    await market.act(order.id, 'pay', renter);
    await market.act(order.id, 'handoff', owner, { content });
    await market.act(order.id, 'confirm-receive', renter);
    await market.act(order.id, 'checkout', renter, { consumption });
    return order;
  }

  it('counts order moves, GMV, platform fees, recharges, disputes and the review queue as they happen', async () => {
    const { stack, market } = own;
    const orders = stack.services.orders!.url;
    const before = await scrape(orders);
    const owner = await market.user();
    const renter = await market.fundedUser(30_000);

    const pending = await market.client.post(
      '/api/listings',
      { title: '原神 满命', game: '原神', hourly_price: 500, deposit: 1000, min_hours: 1, max_hours: 24 },
      owner.token,
    );
    await market.client.post(`/api/listings/${pending.body.id}/submit-review`, {}, owner.token);
    expect(sample(await scrape(stack.services.catalog!.url), 'market_listings_pending_review')).toBe(1);

    const done = await checkedOut(owner, renter, 2, 'account 1 / pw', 1600);
    const completed = await market.act(done.id, 'checkout/confirm', owner);

    const second = await market.onlineListing(owner);
    const cancelled = await market.order(renter, second.id, 1);
    await market.act(cancelled.id, 'cancel', renter, { reason: 'changed my mind' });

    const disputed = await checkedOut(owner, renter, 1, 'account 3 / pw', 800);
    await market.act(disputed.id, 'checkout/counter', owner, { deposit_deduction: 1000, reason: 'banned' });
    await market.act(disputed.id, 'checkout/reject', renter, { reason: 'it was banned before' });

    const after = await scrape(orders);
    const delta = (name: string, labels: Record<string, string> = {}) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('market_orders_total', { event: 'created' })).toBe(3);
    expect(delta('market_orders_total', { event: 'paid' })).toBe(2);
    expect(delta('market_orders_total', { event: 'completed' })).toBe(1);
    expect(delta('market_orders_total', { event: 'cancelled' })).toBe(1);
    expect(delta('market_orders_gmv_fen_total')).toBe(done.amount + disputed.amount);
    expect(delta('market_platform_fees_fen_total')).toBe(completed.checkout.platform_fee);
    expect(completed.checkout.platform_fee).toBeGreaterThan(0);
    expect(sample(after, 'market_disputes_open')).toBe(1);
    expect(sample(after, 'market_disputes_oldest_open_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'market_orders_settlement_waiting')).toBe(0);

    // HTTP by route id, method and status: the contract ids of what the client called.
    expect(sample(after, 'market_http_request_duration_seconds_count', { route: 'payOrder', method: 'POST', status: '200' })).toBe(2);
    expect(sample(after, 'market_http_request_duration_seconds_count', { route: 'createOrder', method: 'POST', status: '201' })).toBe(3);
    expect(sample(after, 'market_http_request_duration_seconds_bucket', { le: '+Inf', route: 'payOrder', method: 'POST', status: '200' })).toBe(2);

    const wallet = await scrape(stack.services.wallet!.url);
    expect(sample(wallet, 'market_recharges_total', { outcome: 'succeeded' })).toBe(1);
    expect(sample(wallet, 'market_recharges_fen_total', { outcome: 'succeeded' })).toBe(30_000);
    // wallet consumes order.completed and settles it: the handler ran once and its duration was observed
    const settled = await eventually(
      async () => sample(await scrape(stack.services.wallet!.url), 'market_events_handled_total', { type: 'order.completed', outcome: 'handled' }),
      (n) => n === 1,
    );
    expect(settled).toBe(1);
    expect(sample(wallet, 'market_events_dlq_depth')).toBe(0);
    expect(sample(wallet, 'market_events_retry_depth')).toBe(0);
  }, 120_000);

  it('exposes the pool, the outbox, open streams and the process figures', async () => {
    const { stack, market } = own;
    const orders = await scrape(stack.services.orders!.url);
    expect(sample(orders, 'market_db_pool_connections', { state: 'waiting' })).toBe(0);
    expect(sample(orders, 'market_db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(sample(orders, 'market_db_pool_max')).toBe(10);
    await eventually(
      async () => sample(await scrape(stack.services.orders!.url), 'market_outbox_pending'),
      (n) => n === 0,
    );
    expect(sample(orders, 'market_outbox_oldest_pending_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(orders, 'market_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(orders).toContain('market_nodejs_eventloop_lag_seconds');

    const user = await market.user();
    const stream = new AbortController();
    const res = await fetch(`${stack.url}/api/notifications/stream`, { headers: { authorization: `Bearer ${user.token}` }, signal: stream.signal });
    expect(res.status).toBe(200);
    const notify = stack.services.notify!.url;
    expect(sample(await scrape(notify), 'market_notify_open_streams')).toBe(1);
    stream.abort();
    await eventually(
      async () => sample(await scrape(notify), 'market_notify_open_streams'),
      (n) => n === 0,
    );
  }, 60_000);

  it('serves the gateway metrics on their own port and never forwards /metrics on the public one', async () => {
    const { stack, market } = own;
    const publicAnswer = await fetch(`${stack.url}/metrics`);
    expect(publicAnswer.status).toBe(404);
    expect(await publicAnswer.text()).not.toContain('market_');
    expect((await fetch(`${stack.url}/api/metrics`)).status).toBe(404);

    await market.client.get('/api/listings');
    const gateway = await scrape(stack.gatewayMetricsUrl);
    expect(sample(gateway, 'market_http_request_duration_seconds_count', { route: 'listListings', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(gateway, 'market_http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${stack.gatewayMetricsUrl}/anything`)).status).toBe(404);
  });

  it('alert rules pass promtool and name only metrics the running system exposes', async () => {
    const { stack } = own;
    const rules = path.resolve(__dirname, '../../../docs/operations/alerts.yml');
    // promtool comes with Debian's `prometheus` package (CI installs it); it checks syntax and PromQL.
    const checked = execFileSync('promtool', ['check', 'rules', rules], { encoding: 'utf8' });
    expect(checked).toMatch(/SUCCESS: \d+ rules found/);

    const exposed = new Set<string>();
    for (const url of [...Object.values(stack.services).map((s) => s!.url), stack.gatewayMetricsUrl]) {
      // declared metrics count even before their first sample (a labelled counter nothing has incremented yet)
      for (const [, name, type] of (await scrape(url)).matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        exposed.add(name!);
        if (type === 'histogram') for (const suffix of ['_count', '_sum', '_bucket']) exposed.add(name! + suffix);
      }
    }
    const named = new Set(readFileSync(rules, 'utf8').match(/\bmarket_[a-z0-9_]+/g));
    expect(named.size).toBeGreaterThanOrEqual(8);
    expect([...named].filter((name) => !exposed.has(name))).toEqual([]);
  });
});
