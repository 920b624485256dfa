import { randomBytes, randomInt } from 'node:crypto';
import type { ServiceName } from '@market/contracts';
import { resolveInfra } from '@market/shared/testing';
import { api, eventually, startStack, type Stack } from '@market/testkit';

/**
 * The broker away for one process of one stack, nobody else's: its broker user (the stack's own,
 * on the stack's own vhost) gets another password and its connections are closed, so its bus
 * reconnects and is refused until `restore`. Through the broker's management API, as the testkit
 * provisions the vhost.
 */
async function brokerAwayFor(stack: Stack, service: ServiceName) {
  const url = new URL(stack.broker.urlOf(service));
  const user = decodeURIComponent(url.username);
  const infra = new URL((await resolveInfra()).AMQP_URL);
  const base = process.env.RABBITMQ_MANAGEMENT_URL ?? `http://${infra.hostname}:15672`;
  const credentials = `${decodeURIComponent(infra.username || 'guest')}:${decodeURIComponent(infra.password || 'guest')}`;
  const management = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/${path}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // a connection closed meanwhile is gone already
    if (!res.ok && !(method === 'DELETE' && res.status === 404)) throw new Error(`management API ${method} ${path}: ${res.status}`);
    return res.status === 204 || res.headers.get('content-length') === '0' ? undefined : res.json();
  };
  const setPassword = (password: string) => management('PUT', `users/${encodeURIComponent(user)}`, { password, tags: '' });
  await setPassword(randomBytes(12).toString('hex'));
  return {
    /** closes the user's connections the broker lists (its list trails new connections by its stats interval: call until the process says so) */
    async closeConnections() {
      const connections = (await management('GET', `vhosts/${encodeURIComponent(stack.broker.vhost)}/connections`)) as Array<{ name: string; user: string }>;
      for (const connection of connections.filter((c) => c.user === user)) {
        await management('DELETE', `connections/${encodeURIComponent(connection.name)}`);
      }
    },
    restore: () => setPassword(decodeURIComponent(url.password)),
  };
}

/**
 * The gateway's public readiness says whether the gateway itself can serve, from a view checked at
 * most once a second; the whole system's readiness is on the metrics port, for operators (ADR 0056).
 * A backing service away keeps every pod in rotation and is reported (ADR 0070).
 */
describe('the gateway’s readiness and the system’s', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['identity', 'catalog', 'orders'] });
  }, 60_000);
  afterAll(() => stack.stop());

  const systemView = async () => {
    const res = await fetch(`${stack.gatewayMetricsUrl}/system/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, boolean> } };
  };

  it('answers a burst of 200 concurrent anonymous probes all ready, without asking the services each time', async () => {
    const readyzCalls = () =>
      Object.values(stack.services).map(async (service) => {
        const exposition = await (await fetch(`${service!.url}/metrics`)).text();
        const line = exposition.split('\n').find((l) => l.startsWith('market_http_request_duration_seconds_count{') && l.includes('route="readyz"'));
        return line ? Number(line.split(' ').pop()) : 0;
      });
    const before = await Promise.all(readyzCalls());
    const answers = await Promise.all(Array.from({ length: 200 }, () => fetch(`${stack.url}/readyz`)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(200);
    expect(await answers[0]!.json()).toEqual({ status: 'ready', checks: { redis: true } });
    await Promise.all(answers.slice(1).map((res) => res.arrayBuffer()));
    // the gateway's readiness does not fan out to the services at all
    expect(await Promise.all(readyzCalls())).toEqual(before);
  });

  it('is not exposed publicly: the system view lives only on the metrics port', async () => {
    expect((await fetch(`${stack.url}/system/readyz`)).status).toBe(404);
    const view = await systemView();
    expect(view.status).toBe(503);
    // wallet, files, notify and admin are not part of this stack
    expect(view.body.checks).toMatchObject({ redis: true, identity: true, catalog: true, orders: true, wallet: false, admin: false });
  });

  it('keeps a service in rotation while its broker is away: its writes succeed, it reports degraded, the events go out after', async () => {
    const client = api(stack.url);
    const identity = stack.services.identity!;
    const unpublished = async () => Number((await identity.ctx.db.query('select count(*)::int as n from outbox where published_at is null'))[0].n);
    const readyz = async () => {
      const res = await fetch(`${identity.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, boolean> } };
    };
    const away = await brokerAwayFor(stack, 'identity');
    try {
      const view = await eventually(
        async () => {
          await away.closeConnections();
          return readyz();
        },
        (answer) => answer.body.checks.broker === false,
        20_000,
      );
      expect(view).toEqual({ status: 200, body: { status: 'degraded', checks: { accepting: true, database: true, broker: false, redis: true } } });
      // a write through the gateway (a new user and its audit event, in one transaction): the event waits in the outbox
      const phone = `136${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
      const sent = await client.post('/api/auth/sms/send', { phone });
      expect(sent.status).toBe(200);
      expect((await client.post('/api/auth/sms/login', { phone, code: sent.body.dev_code })).status).toBe(200);
      expect(await unpublished()).toBeGreaterThan(0);
      const system = await systemView();
      expect(system.status).toBe(503);
      expect(system.body.checks).toMatchObject({ identity: true, 'identity.broker': false, 'identity.database': true, 'catalog.broker': true });
    } finally {
      await away.restore();
    }
    await eventually(readyz, (answer) => answer.body.status === 'ready', 15_000);
    await eventually(unpublished, (n) => n === 0);
  });

  it('stays ready with a service down, while the operators’ view names the service', async () => {
    await stack.services.catalog!.stop();
    const view = await systemView();
    expect(view.status).toBe(503);
    expect(view.body).toMatchObject({ status: 'not_ready', checks: { catalog: false, identity: true, orders: true, redis: true } });
    const gateway = await api(stack.url).get('/readyz');
    expect(gateway.status).toBe(200);
    expect(gateway.body).toEqual({ status: 'ready', checks: { redis: true } });
    // the routes of the service down answer 503, the others still work
    expect((await api(stack.url).get('/api/listings')).status).toBe(503);
  });
});
