import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry } from '../src/telemetry';
import { flushTraces, inSampledSpan, isSampled } from '../src/tracing';

const traceA = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceB = '0af7651916cd43dd8448eb211c80319c';
const sampled = (traceId: string, parent: string) => `00-${traceId}-${parent}-01`;
const unsampled = `00-${traceA}-00f067aa0ba902b7-00`;

/**
 * The spans the kit makes itself for an event's hops (its relay's publish, its inbox's handling):
 * made only in a trace that was sampled where it started, so that for the other 99 % nothing is made,
 * and the instrumentations that trace only inside a span make nothing either (ADR 0085).
 */
describe('spans of an event’s hops, only in sampled traces', () => {
  const exporter = new InMemorySpanExporter();
  let sdk: NodeSDK | null;

  beforeAll(() => {
    sdk = startTelemetry('event-hop-test', { uses: { database: false }, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await sdk?.shutdown();
  });

  it('tells a sampled traceparent from an unsampled, a malformed or a missing one', () => {
    expect(isSampled(sampled(traceA, '00f067aa0ba902b7'))).toBe(true);
    expect(isSampled(`00-${traceA}-00f067aa0ba902b7-03`)).toBe(true);
    expect([unsampled, 'nonsense', `00-${traceA}-00f067aa0ba902b7-1`, undefined, null, 42].map(isSampled)).toEqual([false, false, false, false, false, false]);
  });

  it('runs the work in no span and hands on no traceparent where no trace is sampled', async () => {
    const seen = await inSampledSpan('q process', SpanKind.CONSUMER, [unsampled, undefined, null], async (traceparent) => ({
      traceparent,
      active: trace.getSpan(context.active()),
    }));
    expect(seen).toEqual({ traceparent: undefined, active: undefined });
    await flushTraces();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('makes a span in each sampled trace, the child of its traceparent, the work in the first, and hands on the first span’s traceparent', async () => {
    const seen = await inSampledSpan('q process', SpanKind.CONSUMER, [unsampled, sampled(traceA, '00f067aa0ba902b7'), sampled(traceB, 'b7ad6b7169203331')], async (traceparent) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { traceparent, active: trace.getSpan(context.active())?.spanContext() };
    });
    await flushTraces();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.kind, s.spanContext().traceId, s.parentSpanContext?.spanId])).toEqual([
      ['q process', SpanKind.CONSUMER, traceA, '00f067aa0ba902b7'],
      ['q process', SpanKind.CONSUMER, traceB, 'b7ad6b7169203331'],
    ]);
    expect(seen.active?.spanId).toBe(spans[0]!.spanContext().spanId);
    expect(seen.traceparent).toBe(sampled(traceA, spans[0]!.spanContext().spanId));
  });

  it('ends the spans with the error of work that fails, and passes the failure on', async () => {
    await expect(
      inSampledSpan('q process', SpanKind.CONSUMER, [sampled(traceA, '00f067aa0ba902b7')], async () => {
        throw new Error('handler refused');
      }),
    ).rejects.toThrow('handler refused');
    expect(() =>
      inSampledSpan('publish x', SpanKind.PRODUCER, [sampled(traceB, 'b7ad6b7169203331')], () => {
        throw new Error('channel closed');
      }),
    ).toThrow('channel closed');
    await flushTraces();
    expect(exporter.getFinishedSpans().map((s) => [s.kind, s.status.code, s.events[0]?.name])).toEqual([
      [SpanKind.CONSUMER, SpanStatusCode.ERROR, 'exception'],
      [SpanKind.PRODUCER, SpanStatusCode.ERROR, 'exception'],
    ]);
  });
});
