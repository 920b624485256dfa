import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainServer } from '../src/http/drain-server';

/** GET / over `agent`, resolving with the status once the whole answer has arrived. */
function get(port: number, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('draining a server', () => {
  let server: Server;
  afterEach(() => server?.closeAllConnections());

  it('ends soon after a request in flight at the start is answered, though its connection was kept alive', async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    server = createServer((_req, res) => {
      arrived();
      // a slow answer is the subject: the drain must wait for it
      setTimeout(() => res.end('late'), 300);
    });
    // as the services: an idle keep-alive connection would otherwise be kept a minute
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      const answered = get(port, agent);
      await inFlight;
      const started = Date.now();
      const drained = drainServer(server, 0).then(() => Date.now() - started);
      expect(await answered).toBe(200);
      let timer: NodeJS.Timeout | undefined;
      const tookMs = await Promise.race([drained, new Promise<number>((resolve) => (timer = setTimeout(() => resolve(Infinity), 5_000)))]);
      clearTimeout(timer);
      expect(tookMs).toBeLessThan(5_000);
    } finally {
      agent.destroy();
    }
  });
});
