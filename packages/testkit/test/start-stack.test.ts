import { createServer, type Server } from 'node:net';
import { eventually, startStack } from '@market/testkit';

/** Sockets, servers and timers this process holds: what would keep jest alive after the file. */
function liveHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (['TCPSocketWrap', 'TCPServerWrap', 'Timeout'].includes(kind)) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

describe('a stack whose start fails halfway', () => {
  let blocker: Server;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('stops everything it had started (database pools, broker and Redis connections, servers, timers), so nothing keeps the test runner alive', async () => {
    const before = liveHandles();
    const { port } = blocker.address() as { port: number };
    // Catalog starts whole; wallet gets its database, broker, relay and consumer, then cannot listen.
    const failure = await startStack({ services: ['catalog', 'wallet'], serviceEnv: { wallet: { PORT: String(port) } } }).catch((err) => err);
    expect(failure).toMatchObject({ code: 'EADDRINUSE' });
    // sockets being closed leave the handle list a moment after their close resolved
    const after = await eventually(
      async () => liveHandles(),
      (now) => Object.keys(now).every((kind) => now[kind]! <= (before[kind] ?? 0)),
    ).catch(() => liveHandles());
    const grown = Object.keys(after).filter((kind) => after[kind]! > (before[kind] ?? 0));
    expect({ grown, before, after }).toEqual({ grown: [], before, after });
  });
});
