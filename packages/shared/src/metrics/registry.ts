import { createServer, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Buckets of every latency histogram, in seconds: from a cached read to the gateway's upstream timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * How often the event-loop lag is sampled, in ms. prom-client's default of 10 ms is a timer that
 * wakes every process 100 times a second; on the paravirtualised VMs measured here an idle service
 * then spent ~9 ms of CPU a second, 4 of them on that timer. Ten samples a second still show a loop
 * that lags for a scrape interval (ADR 0080).
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** Longest a scrape waits for one figure read at scrape time (a query, a queue check); past it the figure is left out. */
const SCRAPE_READ_TIMEOUT_MS = 1000;

/**
 * The metrics of one process part (a service or the gateway), in a registry of its own: the test
 * kit runs several services in one process, so nothing goes into prom-client's global registry.
 * Every name starts with `market_`; `service` is a default label, so one Prometheus job can scrape
 * every service and still tell them apart.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly http: Histogram<'route' | 'method' | 'status'>;

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry, prefix: 'market_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.http = this.histogram(
      'market_http_request_duration_seconds',
      'HTTP requests by route id (the contract id; healthz, readyz, metrics, unmatched otherwise), method and status, with their latency',
      ['route', 'method', 'status'],
    );
  }

  /** One finished HTTP request. */
  observeHttp(route: string, method: string, status: number, seconds: number) {
    this.http.observe({ route, method, status: String(status) }, seconds);
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [this.registry] });
  }

  /**
   * A gauge computed when Prometheus scrapes: `read` answers the values by label set (`{}` for
   * none). A read that fails or outlasts the scrape's patience leaves the gauge out of that scrape
   * rather than failing the whole answer or reporting a made-up zero.
   */
  scrapeGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: () => Promise<Array<{ labels?: Partial<Record<L, string>>; value: number }>> | Array<{ labels?: Partial<Record<L, string>>; value: number }>,
  ): Gauge<L> {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        const values = await withTimeout(Promise.resolve().then(read), SCRAPE_READ_TIMEOUT_MS).catch(() => null);
        for (const { labels, value } of values ?? []) {
          if (labels) this.set(labels, value);
          else this.set(value);
        }
      },
    });
  }

  /** The exposition text and its content type, for a `/metrics` answer. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('scrape read timed out')), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** An operators' page beside the metrics: answers a GET of its path. */
export type OperatorPage = (res: ServerResponse) => void;

/**
 * A server answering `GET /metrics` (and the operators' pages given, by path), on a port of its
 * own: the gateway's public port never shows its metrics, and a Kubernetes Service or load balancer
 * simply does not expose this one.
 */
export function createMetricsServer(metrics: Metrics, pages: Record<string, OperatorPage> = {}): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const page = Object.hasOwn(pages, path) ? pages[path] : undefined;
    if (req.method === 'GET' && page) {
      page(res);
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
}
