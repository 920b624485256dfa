import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { uniqueName } from '@market/shared/testing';
import { api, eventually } from '@market/testkit';
import { LAUNCH_BOUND_MS, launchSystem, type LaunchedSystem } from './launcher';

interface Span {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/**
 * An OpenTelemetry collector as far as the exporters can tell: OTLP/HTTP with JSON bodies on
 * `/v1/traces`, answering as a collector does; it keeps every span it is sent.
 */
async function otlpReceiver(): Promise<{ url: string; spans: Span[]; others: string[]; close: () => Promise<void> }> {
  const spans: Span[] = [];
  const others: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        others.push(`${req.method} ${req.url}`);
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = resourceSpans.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              attributes: Object.fromEntries((span.attributes ?? []).map((a: any) => [a.key, Object.values(a.value)[0]])),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    others,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The launcher behind `npm start`, run as a user would (./launcher), once for the file: starting the
 * whole system costs the machine more than anything else a test does. It runs with the standard
 * OTEL_* variables pointing at a collector, so one pay request can be followed as one trace from the
 * gateway through orders and wallet to notify's consumer of the event it wrote.
 */
describe('the whole system started by the launcher', () => {
  const database = uniqueName('market_e2e');
  // Below the kernel's ephemeral range (32768–60999): a port in it can be taken at any moment as the
  // local end of some outgoing connection, and the launcher's services would fail to listen.
  const port = 18080;
  let system: LaunchedSystem;
  let launcher: ChildProcess;
  let adminUrl: string;
  let collector: Awaited<ReturnType<typeof otlpReceiver>>;
  const output = () => system.output();

  beforeAll(async () => {
    collector = await otlpReceiver();
    system = await launchSystem({
      port,
      database,
      name: 'system',
      env: {
        SMS_DAILY_LIMIT_PER_IP: '1000',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        // every trace started at the gateway is kept (the default keeps 1%); a caller's decision is followed
        OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      },
    });
    launcher = system.process;
    adminUrl = system.adminUrl;
  }, LAUNCH_BOUND_MS + 30_000);

  afterAll(async () => {
    await system?.stop();
    await collector?.close();
  }, 30_000);

  it('named nothing missing before starting, and printed that the system is ready', async () => {
    await eventually(async () => output().includes('system ready'), (printed) => printed);
    expect(output()).not.toContain('cannot be reached');
    expect(output()).not.toContain('redis unreachable');
  });

  it('is ready behind the gateway with every service reachable', async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({ status: 'ready', checks: { redis: true } });
    // the whole system's view, on the gateway's metrics port (PORT + 9 under npm start)
    const res = await fetch(`http://127.0.0.1:${port + 9}/system/readyz`);
    const body = (await res.json()) as { checks: Record<string, boolean> };
    expect(res.status).toBe(200);
    expect(Object.values(body.checks).every(Boolean)).toBe(true);
    expect(Object.keys(body.checks)).toEqual(
      expect.arrayContaining(['redis', 'identity', 'catalog', 'orders', 'wallet', 'files', 'notify', 'admin']),
    );
    const admin = await fetch(`http://127.0.0.1:${port + 7}/readyz`);
    expect(await admin.json()).toMatchObject({ status: 'ready', checks: { first_admin: true, database: true, broker: true, redis: true } });
  });

  it('created the first back-office admin, who can log in with the development password it printed', async () => {
    const messages = () =>
      output().split('\n').flatMap((line) => {
        try {
          return [(JSON.parse(line) as { msg?: string }).msg ?? ''];
        } catch {
          return [];
        }
      });
    // the admin's log line travels through its pipe and the launcher's; it may trail the readiness
    await eventually(
      async () => messages().some((msg) => msg.startsWith('first admin created: username "admin"')),
      (printed) => printed,
    );
    const base = `http://127.0.0.1:${port}`;
    const captcha = (await (await fetch(`${base}/api/admin/auth/captcha`)).json()) as { captcha_id: string; dev_text: string };
    const login = await fetch(`${base}/api/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'admin',
        password: 'dev-only-admin-password-0000',
        captcha_id: captcha.captcha_id,
        captcha_code: captcha.dev_text,
      }),
    });
    expect(login.status).toBe(200);
    const { access_token } = (await login.json()) as { access_token: string };
    const me = await fetch(`${base}/api/admin/me`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(((await me.json()) as { username: string }).username).toBe('admin');
  });

  it('gives each service a role that cannot touch another service schema', async () => {
    const url = new URL(adminUrl);
    url.username = 'market_catalog';
    url.password = 'dev-catalog-password';
    url.pathname = `/${database}`;
    const catalog = new Client({ connectionString: url.toString() });
    await catalog.connect();
    try {
      await expect(catalog.query('SELECT count(*) FROM catalog.outbox')).resolves.toBeDefined();
      await expect(catalog.query('SELECT count(*) FROM identity.outbox')).rejects.toThrow(/permission denied/);
      await expect(catalog.query('CREATE TABLE public.sneaky (id int)')).rejects.toThrow(/permission denied/);
    } finally {
      await catalog.end();
    }
  });

  it('follows one pay request from the gateway through orders and wallet to notify consuming order.paid', async () => {
    const client = api(`http://127.0.0.1:${port}`);
    const login = async (phone: string) => {
      const sent = await client.post('/api/auth/sms/send', { phone });
      const done = await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code });
      expect(done.status).toBe(200);
      return done.body.access_token as string;
    };
    const owner = await login('13900000001');
    const renter = await login('13900000002');
    const captcha = await client.get('/api/admin/auth/captcha');
    const admin = await client.post('/api/admin/auth/login', {
      username: 'admin',
      password: 'dev-only-admin-password-0000',
      captcha_id: captcha.body.captcha_id,
      captcha_code: captcha.body.dev_text,
    });
    const listing = await client.post('/api/listings', { title: '追踪 账号', game: '原神', hourly_price: 500, deposit: 1000, min_hours: 1, max_hours: 4 }, owner);
    await client.post(`/api/listings/${listing.body.id}/submit-review`, {}, owner);
    expect((await client.post(`/api/admin/listings/${listing.body.id}/approve`, {}, admin.body.access_token)).status).toBe(200);
    const recharge = await client.post('/api/wallet/recharge/pay', { amount: 10_000, channel: 'alipay' }, renter);
    await client.post(`/api/payments/sandbox/${recharge.body.id}/complete`, { status: 'succeeded' });
    await eventually(() => client.get('/api/wallet/balance', renter), (r) => r.body.available === 10_000);
    const order = await client.post('/api/orders', { listing_id: listing.body.id, hours: 1 }, renter);
    expect(order.status).toBe(201);

    // a caller that decided not to sample: nothing of its request is traced anywhere (checked below,
    // once the later pay request's trace has arrived)
    const unsampledTrace = '5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e';
    const unsampled = await fetch(`http://127.0.0.1:${port}/api/orders/${order.body.id}`, {
      headers: { authorization: `Bearer ${renter}`, traceparent: `00-${unsampledTrace}-5ca1ab1e5ca1ab1e-00` },
    });
    expect(unsampled.status).toBe(200);

    const payPath = `/api/orders/${order.body.id}/pay`;
    expect((await client.post(payPath, {}, renter)).status).toBe(200);

    // the gateway's server span of the request starts the trace
    const root = await eventually(
      async () => collector.spans.find((s) => s.service === 'gateway' && s.kind === 2 && String(s.attributes['url.path'] ?? s.attributes['http.target']).startsWith(payPath)),
    );
    expect(root!.parentSpanId).toBeUndefined();
    const trace = await eventually(
      async () => collector.spans.filter((s) => s.traceId === root!.traceId),
      (spans) => {
        const ids = new Map(spans.map((s) => [s.spanId, s]));
        const has = (service: string, kind: number) => spans.some((s) => s.service === service && s.kind === kind);
        const notifiedFromOrders = spans.some((s) => s.service === 'notify' && s.kind === 5 && ids.get(s.parentSpanId!)?.service === 'orders');
        return has('orders', 2) && has('wallet', 2) && notifiedFromOrders;
      },
      15_000,
    );
    // orders served it (a server span whose parent is the gateway's client span), wallet was called by orders
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const ordersServer = trace.find((s) => s.service === 'orders' && s.kind === 2)!;
    expect(byId.get(ordersServer.parentSpanId!)?.service).toBe('gateway');
    const walletServer = trace.find((s) => s.service === 'wallet' && s.kind === 2)!;
    expect(byId.get(walletServer.parentSpanId!)?.service).toBe('orders');
    // notify's consumer span continues the trace of the change that wrote order.paid: its parent is
    // the publish span orders' relay made in that trace (a producer span)
    const fromOrders = trace.filter((s) => s.service === 'notify' && s.kind === 5 && byId.get(s.parentSpanId!)?.service === 'orders');
    expect(fromOrders.map((s) => byId.get(s.parentSpanId!)!.kind)).toEqual([4]);
    // database work of each service is in the trace too
    expect(trace.some((s) => s.service === 'orders' && String(s.attributes['db.system'] ?? s.attributes['db.system.name']) === 'postgresql')).toBe(true);

    // the trace id is in the log lines of the request: the gateway's access line (naming the service
    // that answered as `upstream`) and orders' own
    const lines = () =>
      system.output().split('\n').filter((line) => line.includes(`"trace_id":"${root!.traceId}"`) && line.includes(`"path":"${payPath}"`));
    const logged = await eventually(async () => lines(), (found) => found.length >= 2);
    expect(logged.some((line) => line.startsWith('{"level":"info"') && line.includes('"service":"gateway"') && JSON.parse(line).upstream === 'orders')).toBe(true);
    expect(logged.some((line) => JSON.parse(line).service === 'orders')).toBe(true);
    expect(collector.spans.filter((s) => s.traceId === unsampledTrace)).toEqual([]);
    // traces only: no metrics or logs pushed over OTLP (metrics are scraped at /metrics)
    expect(collector.others).toEqual([]);
  }, 60_000);

  // last: it ends the system the tests above use
  it('stops every process on Ctrl-C', async () => {
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    launcher.kill('SIGINT');
    expect(await exited).toBe(0);
    const down = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => 'up',
      () => 'down',
    );
    expect(down).toBe('down');
    for (let i = 1; i <= 7; i++) {
      const service = await fetch(`http://127.0.0.1:${port + i}/healthz`).then(
        () => 'up',
        () => 'down',
      );
      expect(service).toBe('down');
    }
  }, 20_000);
});
