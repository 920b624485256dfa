import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineInternalRoute, z, type ServiceName } from '@market/contracts';
import { InternalClient } from '../src/http';
import { DependencyFailed } from '../src/errors';

const echo = defineInternalRoute({
  id: 'testEcho',
  service: 'wallet',
  callers: ['orders'],
  method: 'post',
  path: '/test/echo',
  body: z.object({ n: z.number().int() }),
  response: z.object({ n: z.number().int(), port: z.number().int() }),
});

/** A replica: answers `/internal/test/echo` with the body's `n` and its own port, after `delayMs`. */
async function replica(port = 0, delayMs = 0): Promise<{ server: Server; port: number; seen: number[] }> {
  const seen: number[] = [];
  let bound = 0;
  const server = createServer(async (req: IncomingMessage, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const { n } = JSON.parse(text) as { n: number };
    seen.push(n);
    const answer = setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ n, port: bound }));
    }, delayMs);
    // a caller that gave up closed the connection: nothing is left to answer
    res.on('close', () => clearTimeout(answer));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  bound = (server.address() as AddressInfo).port;
  return { server, port: bound, seen };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/** A port nothing listens on right now: connections to it are refused. */
async function refusingPort(): Promise<number> {
  const { server, port } = await replica();
  await close(server);
  return port;
}

const clientOf = (urls: string, ejectMs: number, timeoutMs = 5000, now: () => number = Date.now) =>
  new InternalClient({ wallet: urls } as Record<ServiceName, string>, () => 'assertion', timeoutMs, ejectMs, now);

describe('InternalClient over replicas', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(close));
  });

  it('sends a call a replica refused to the next one, body and all, passes over it for the eject time, then takes it back', async () => {
    const down = await refusingPort();
    const up = await replica();
    servers.push(up.server);
    // the eject time runs on this test's clock, not the machine's: a loaded machine's slow calls
    // must not end it early
    let clock = 1_000_000;
    const client = clientOf(`http://127.0.0.1:${down},http://127.0.0.1:${up.port}`, 400, 5000, () => clock);

    const answers = [];
    for (let n = 0; n < 4; n++) answers.push(await client.call(echo, { body: { n } }));
    expect(answers).toEqual([0, 1, 2, 3].map((n) => ({ n, port: up.port })));
    expect(up.seen).toEqual([0, 1, 2, 3]);

    // back on its port, but still set aside: nothing comes its way until the eject time has passed
    const back = await replica(down);
    servers.push(back.server);
    await client.call(echo, { body: { n: 4 } });
    await client.call(echo, { body: { n: 5 } });
    expect(back.seen).toEqual([]);
    // the eject time passing is the subject: only then does the replica get requests again
    clock += 450;
    await client.call(echo, { body: { n: 6 } });
    await client.call(echo, { body: { n: 7 } });
    expect(back.seen).toHaveLength(1);
  });

  it('fails as unreachable only when every replica refused, and still tries them when all are set aside', async () => {
    const [first, second] = [await refusingPort(), await refusingPort()];
    const client = clientOf(`http://127.0.0.1:${first},http://127.0.0.1:${second}`, 5000);
    await expect(client.call(echo, { body: { n: 1 } })).rejects.toBeInstanceOf(DependencyFailed);
    const back = await replica(second);
    servers.push(back.server);
    expect(await client.call(echo, { body: { n: 2 } })).toEqual({ n: 2, port: second });
  });

  it('does not send a timed-out call to another replica: it may have been applied', async () => {
    const slow = await replica(0, 1000);
    const fast = await replica();
    servers.push(slow.server, fast.server);
    const client = clientOf(`http://127.0.0.1:${slow.port},http://127.0.0.1:${fast.port}`, 5000, 200);
    await expect(client.call(echo, { body: { n: 1 } })).rejects.toBeInstanceOf(DependencyFailed);
    expect(slow.seen).toEqual([1]);
    expect(fast.seen).toEqual([]);
  });
});
