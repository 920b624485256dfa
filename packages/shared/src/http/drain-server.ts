import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';

/**
 * Stops an HTTP server without failing a request a keep-alive client (the gateway) already sent:
 * new connections are refused at once (the gateway answers 503), every answer given from now on
 * closes its connection, and connections still idle are closed only once they have been quiet
 * for `graceMs` or none is left. Closing an idle keep-alive connection at the very moment the
 * client writes its next request on it is the reset (a 502 at the gateway) this avoids. Resolves
 * when the last in-flight request has been answered.
 */
export function drainServer(server: Server, graceMs: number): Promise<void> {
  server.prependListener('request', (_req, res) => {
    res.shouldKeepAlive = false;
  });
  // net's close, not http's: since Node 19 http's also closes idle connections at once, and a
  // connection whose request has arrived but not been read yet (a busy process) counts as idle.
  let stopped = false;
  const closed = new Promise<void>((resolve) =>
    NetServer.prototype.close.call(server, () => {
      stopped = true;
      resolve();
    }),
  );
  const deadline = Date.now() + graceMs;
  // Past the grace, idle connections are closed at every sweep until none is left: a request in
  // flight when the drain began was answered keep-alive, and its connection, idle only from then on,
  // would otherwise hold the server open until the keep-alive timeout.
  const sweep = () => {
    if (stopped) return;
    server.getConnections((_err, open) => {
      if (open === 0 || Date.now() >= deadline) server.closeIdleConnections();
      if (open > 0) setTimeout(sweep, 50).unref();
    });
  };
  sweep();
  return closed;
}
