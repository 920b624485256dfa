import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SimulatorServer {
  /** `http://127.0.0.1:<port>`, what the service under test is configured with as the provider's endpoint */
  url: string;
  stop(): Promise<void>;
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers }).end(JSON.stringify(body));
}

/**
 * A provider simulator's HTTP server on a free loopback port. A request the handler leaves
 * unanswered (a stalled provider) stays open until the client gives up or the simulator stops.
 */
export async function startSimulatorServer(handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<SimulatorServer> {
  const server = createServer((req, res) => {
    readBody(req).then(
      (body) => handle(req, res, body),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
