import type { ServerResponse } from 'node:http';
import type { ServiceName } from '@market/contracts';
import { createMetricsServer, Metrics, type OperatorPage } from '@market/shared/metrics';
import { routeIdOf } from './proxy-handler';

/** Route labels of the gateway's own paths; any other path no contract route matched is `unmatched`. */
function ownRoute(path: string): string {
  if (path === '/healthz') return 'healthz';
  if (path === '/readyz') return 'readyz';
  if (path === '/api/openapi.json') return 'openapi';
  if (path === '/api/docs' || path.startsWith('/api/docs/')) return 'docs';
  return 'unmatched';
}

/** The gateway's metrics: every request by route id, method and status, replicas set aside, and the process's own figures. */
export function createGatewayMetrics() {
  const metrics = new Metrics('gateway');
  const pages: Record<string, OperatorPage> = {};
  return {
    metrics,
    /** The metrics port's server: `/metrics` and the operators' pages the gateway registered. */
    server: () => createMetricsServer(metrics, pages),
    /** `GET /system/readyz` on the metrics port: the whole system's readiness, for operators (ADR 0056). */
    serveSystemReadiness(page: OperatorPage) {
      pages['/system/readyz'] = page;
    },
    observe(res: ServerResponse, method: string, path: string, seconds: number) {
      metrics.observeHttp(routeIdOf(res) ?? ownRoute(path), method, res.statusCode, seconds);
    },
    /** `market_gateway_replicas_set_aside{service}`: replicas passed over after a refused connection (ADR 0046). */
    watchReplicas(setAside: () => Array<{ service: ServiceName; count: number }>) {
      metrics.scrapeGauge('market_gateway_replicas_set_aside', 'replicas the gateway passes over after they refused a connection', ['service'], () =>
        setAside().map(({ service, count }) => ({ labels: { service }, value: count })),
      );
    },
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
