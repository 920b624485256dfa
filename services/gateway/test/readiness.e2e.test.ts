import { api, startStack, type Stack } from '@market/testkit';

/**
 * The gateway's public readiness says whether the gateway itself can serve, from a view checked at
 * most once a second; the whole system's readiness is on the metrics port, for operators (ADR 0056).
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
