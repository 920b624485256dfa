import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceName } from '@market/contracts';
import { createServiceApp, type RouteBinding } from '../src/http';
import { createLogger } from '../src/logging';
import { testAssertionVerifier } from '../src/testing';

/**
 * A service app of `routes` alone, as `service` would run it (its callers' assertions checked, its
 * answers held against the contracts), listening on a port the kernel picks.
 */
export async function listenWithRoutes(service: ServiceName, routes: RouteBinding[]): Promise<{ server: Server; base: string }> {
  const app = createServiceApp({
    log: createLogger('test', 'silent'),
    verifyAssertion: testAssertionVerifier(service),
    validateResponses: true,
    readiness: async () => ({ own: {} }),
    routes,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
