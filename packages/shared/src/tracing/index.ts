import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type SpanKind } from '@opentelemetry/api';

/**
 * The W3C trace context of what runs now, through OpenTelemetry's API alone (no SDK: while tracing
 * is off, as it is unless configured, every answer is empty and nothing is recorded).
 */

/** The trace id of the active span, for log lines. */
export function currentTraceId(): string | undefined {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? span.traceId : undefined;
}

/** The active context as a `traceparent` header value, to carry in an event envelope. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Whether `traceparent` is a W3C trace context whose trace is sampled (trace-flags bit 0). */
export function isSampled(traceparent: unknown): traceparent is string {
  return typeof traceparent === 'string' && TRACEPARENT.test(traceparent) && (parseInt(traceparent.slice(-2), 16) & 1) === 1;
}

/**
 * Runs `fn` in a new span `name` of `kind` for each sampled trace of `traceparents`, each the child
 * of its traceparent, `fn` in the first one's context (what it traces, its queries, goes there),
 * and hands `fn` that span's own `traceparent` to send on. Where none is sampled, `fn` runs in no
 * span at all, with no `traceparent`: a trace is decided where it starts (ADR 0068), and an
 * instrumentation that traces only inside a span does nothing for work that is not traced (ADR
 * 0085). For the hops the kit makes itself: an event's publish, and the handling of a delivery or
 * of a batch of them.
 */
export function inSampledSpan<T>(name: string, kind: SpanKind, traceparents: ReadonlyArray<string | null | undefined>, fn: (traceparent: string | undefined) => T): T {
  const parents = traceparents.filter(isSampled).map((traceparent) => propagation.extract(ROOT_CONTEXT, { traceparent }));
  if (parents.length === 0) return fn(undefined);
  const tracer = trace.getTracer('@market/shared');
  const spans = parents.map((parent) => tracer.startSpan(name, { kind }, parent));
  const active = trace.setSpan(parents[0]!, spans[0]!);
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  const end = (err?: unknown) => {
    for (const span of spans) {
      if (err !== undefined) {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
  let result: T;
  try {
    result = context.with(active, () => fn(carrier.traceparent));
  } catch (err) {
    end(err);
    throw err;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        end();
        return value;
      },
      (err: unknown) => {
        end(err);
        throw err;
      },
    ) as T;
  }
  end();
  return result;
}

/** Sends the spans still buffered (before the process exits); nothing to do while tracing is off. */
export async function flushTraces(): Promise<void> {
  const provider = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const delegate = (provider.getDelegate?.() ?? provider) as { forceFlush?: () => Promise<void> };
  await delegate.forceFlush?.().catch(() => undefined);
}
