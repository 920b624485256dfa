import { startService } from '@market/shared/service';
import { api, DEFINITIONS, mintToken, startStack, type Stack } from '@market/testkit';
import { serviceEnv } from '@market/shared/testing';

// Long enough that the dozen requests sent while the replica is set aside all fall within it on a
// loaded CI machine (1.5 s did not, once: the gateway tried the stopped replica again mid-loop).
const EJECT_MS = 5000;

/**
 * Two replicas of notify behind the gateway; one stops (its port refuses connections) and comes
 * back on the same port. The gateway skips the refusing replica, sets it aside for
 * GATEWAY_REPLICA_EJECT_MS and sends it traffic again afterwards (ADR 0046).
 */
describe('a replica that refuses connections', () => {
  let stack: Stack;
  let client: ReturnType<typeof api>;
  const token = mintToken('user');

  beforeAll(async () => {
    stack = await startStack({ services: ['notify'], replicas: { notify: 2 }, env: { GATEWAY_REPLICA_EJECT_MS: String(EJECT_MS) } });
    client = api(stack.url);
  }, 60_000);
  afterAll(() => stack?.stop());

  async function setAside(): Promise<string | undefined> {
    const text = await (await fetch(`${stack.gatewayMetricsUrl}/metrics`)).text();
    return text.match(/^market_gateway_replicas_set_aside\{[^}]*service="notify"[^}]*\} (\d+)$/m)?.[1];
  }

  /** How many requests of `route` a replica has answered, by its own metrics. */
  async function served(url: string, route: string): Promise<number> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const counts = [...text.matchAll(new RegExp(`^market_http_request_duration_seconds_count\\{[^}]*route="${route}"[^}]*\\} (\\d+)$`, 'gm'))];
    return counts.reduce((sum, [, n]) => sum + Number(n), 0);
  }

  const list = () => client.get('/api/notifications', token);
  const readAll = () => client.post('/api/notifications/read-all', {}, token);

  it('is skipped within the request, set aside, and gets traffic again once it is back after the eject time', async () => {
    expect(await setAside()).toBe('0');
    const [, second] = stack.replicas.notify!;
    const port = new URL(second!.url).port;
    await second!.stop();

    // Requests without a body go on to the other replica: one of the first two met the refusal.
    const firstGets = [await list(), await list()];
    expect(firstGets.map((r) => r.status)).toEqual([200, 200]);
    expect(await setAside()).toBe('1');

    // Set aside: nothing, body or not, is sent its way any more.
    const later = [];
    for (let i = 0; i < 6; i++) later.push(await readAll(), await list());
    expect(later.map((r) => r.status)).toEqual(later.map(() => 200));

    const back = await startService(DEFINITIONS.notify, { ...serviceEnv(stack.env, 'notify'), DB_SCHEMA: second!.ctx.schema, PORT: port });
    stack.replicas.notify![1] = back;
    expect(await served(back.url, 'listNotifications')).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, EJECT_MS + 100));

    // three requests a round over two replicas: each replica gets both kinds
    const afterwards = [];
    for (let i = 0; i < 4; i++) afterwards.push(await list(), await list(), await readAll());
    expect(afterwards.map((r) => r.status)).toEqual(afterwards.map(() => 200));
    expect(await setAside()).toBe('0');
    expect(await served(back.url, 'listNotifications')).toBeGreaterThan(0);
    expect(await served(back.url, 'markAllNotificationsRead')).toBeGreaterThan(0);
  }, 60_000);

  it('never replays a body: a request with one that meets a refusal before the replica is set aside is answered 503', async () => {
    const [, second] = stack.replicas.notify!;
    await second!.stop();
    // two in turn: one of them meets the stopped replica first
    const statuses = [(await readAll()).status, (await readAll()).status].sort();
    expect(statuses).toEqual([200, 503]);
    expect(await setAside()).toBe('1');
    expect((await readAll()).status).toBe(200);
  }, 30_000);
});
