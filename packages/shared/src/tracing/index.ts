import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';

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

/** Runs `fn` in the trace a `traceparent` names, so spans it starts continue that trace. */
export function withTraceparent<T>(traceparent: string | null | undefined, fn: () => T): T {
  if (!traceparent) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, { traceparent }), fn);
}

/** Sends the spans still buffered (before the process exits); nothing to do while tracing is off. */
export async function flushTraces(): Promise<void> {
  const provider = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const delegate = (provider.getDelegate?.() ?? provider) as { forceFlush?: () => Promise<void> };
  await delegate.forceFlush?.().catch(() => undefined);
}
