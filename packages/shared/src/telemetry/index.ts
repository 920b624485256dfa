import { context, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { RedisInstrumentation } from '@opentelemetry/instrumentation-redis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { httpInstrumentation } from './http-instrumentation';
import { samplerFor, samplingPolicy, tracesRequest } from './sampling';

export { DEFAULT_RATIO, DEFAULT_SAMPLER, samplerFor, samplingPolicy, tracesRequest, type SamplingPolicy } from './sampling';

/** Whether the standard variables ask for traces: an OTLP endpoint, or an exporter other than `none`. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface TelemetryOptions {
  /** what the process uses: the gateway has no database to instrument */
  uses: { database: boolean };
  /** where outside requests come in (the gateway): requests without a caller's decision are sampled here */
  edge?: boolean;
  /** span processors of a test (an in-memory exporter); the OTEL_* variables decide otherwise */
  spanProcessors?: SpanProcessor[];
}

/**
 * Starts OpenTelemetry's Node SDK for `serviceName` when the standard `OTEL_*` variables configure an
 * exporter (off otherwise: nothing is loaded beyond this module, nothing recorded). It must run
 * before the modules it instruments are loaded: each `main.ts` imports its `telemetry.ts` first.
 * HTTP (incoming, and outgoing through http and fetch, with W3C `traceparent`), Express, Redis, and for services pg;
 * events carry the producer's `traceparent` in their envelope (ADR 0037), and the kit's relay and
 * inbox make the publish and process spans of a sampled one themselves (`inSampledSpan`, ADR 0085):
 * amqplib's instrumentation made a span for every message, traced or not. Sampling follows
 * `OTEL_TRACES_SAMPLER`/`_ARG` (default `parentbased_traceidratio` at 1%) and is decided for an
 * incoming request before any span of it exists (`./sampling`, ADR 0068).
 */
export function startTelemetry(serviceName: string, opts: TelemetryOptions): NodeSDK | null {
  if (!opts.spanProcessors && !tracingConfigured()) return null;
  // Traces only: metrics are Prometheus's (/metrics), and the SDK would otherwise also push its own
  // metrics and logs over OTLP by default. Either can still be asked for with its variable.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const policy = samplingPolicy();
  const edge = opts.edge ?? false;
  // Outgoing calls, queries and commands are traced only inside a trace: outside one (a request
  // not traced has no span) the instrumentations return at once instead of making spans,
  // attributes and listeners nobody records.
  const outsideTrace = () => trace.getSpan(context.active()) === undefined;
  const instrumentations: Instrumentation[] = [
    // a request not traced gets no span, here or downstream
    httpInstrumentation(
      {},
      (req) => !/^\/(healthz|readyz|metrics)$/.test(req.url ?? '') && tracesRequest(req.headers, policy, edge),
      outsideTrace,
    ),
    new ExpressInstrumentation(),
    // fetch: the internal client between services
    new UndiciInstrumentation({ ignoreRequestHook: outsideTrace, requireParentforSpans: true }),
    new RedisInstrumentation({ requireParentSpan: true }),
  ];
  // loaded only where used, so the gateway loads nothing of the database stack
  if (opts.uses.database) {
    const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
    instrumentations.push(new PgInstrumentation({ requireParentSpan: true }));
  }
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? serviceName,
    instrumentations,
    sampler: samplerFor(policy),
    ...(opts.spanProcessors ? { spanProcessors: opts.spanProcessors } : {}),
  });
  sdk.start();
  const shutdown = () => void sdk.shutdown().catch(() => undefined);
  process.once('beforeExit', shutdown);
  return sdk;
}
