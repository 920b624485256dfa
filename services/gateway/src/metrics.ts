import type { ServerResponse } from 'node:http';
import { Metrics } from '@market/shared/metrics';
import { routeIdOf } from './proxy-handler';

/** Route labels of the gateway's own paths; any other path no contract route matched is `unmatched`. */
function ownRoute(path: string): string {
  if (path === '/healthz') return 'healthz';
  if (path === '/readyz') return 'readyz';
  if (path === '/api/openapi.json') return 'openapi';
  if (path === '/api/docs' || path.startsWith('/api/docs/')) return 'docs';
  return 'unmatched';
}

/** The gateway's metrics: every request by route id, method and status, and the process's own figures. */
export function createGatewayMetrics() {
  const metrics = new Metrics('gateway');
  return {
    metrics,
    observe(res: ServerResponse, method: string, path: string, seconds: number) {
      metrics.observeHttp(routeIdOf(res) ?? ownRoute(path), method, res.statusCode, seconds);
    },
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
