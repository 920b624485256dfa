import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { DEFAULT_RATIO, samplerFor, samplingPolicy, tracesRequest } from '../src/telemetry';

const sampledParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const unsampledParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** What share of `n` requests without a caller's decision a policy keeps, with a seeded sequence. */
function keptShare(edge: boolean, env: NodeJS.ProcessEnv, n = 10_000): number {
  const policy = samplingPolicy(env);
  let seed = 1;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  let kept = 0;
  for (let i = 0; i < n; i++) if (tracesRequest({}, policy, edge, random)) kept++;
  return kept / n;
}

describe('trace sampling decided from the request headers', () => {
  it('defaults to parent-based 1% sampling', () => {
    expect(samplingPolicy({})).toEqual({ ratio: DEFAULT_RATIO, parentBased: true });
    expect(DEFAULT_RATIO).toBe(0.01);
    expect(samplingPolicy({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toEqual({ ratio: 0.25, parentBased: true });
    expect(samplingPolicy({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' })).toEqual({ ratio: 1, parentBased: true });
    expect(samplingPolicy({ OTEL_TRACES_SAMPLER: 'always_on' })).toEqual({ ratio: 1, parentBased: false });
    expect(samplingPolicy({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toEqual({ ratio: 0, parentBased: true });
  });

  it('refuses a sampler it does not know and a ratio out of range', () => {
    expect(() => samplingPolicy({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/not supported/);
    expect(() => samplingPolicy({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/ratio/);
    expect(() => samplingPolicy({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' })).toThrow(/ratio/);
  });

  it('follows the caller’s decision when parent-based, at the edge and in a service', () => {
    const policy = samplingPolicy({ OTEL_TRACES_SAMPLER_ARG: '0' });
    for (const edge of [true, false]) {
      expect(tracesRequest({ traceparent: sampledParent }, policy, edge)).toBe(true);
      expect(tracesRequest({ traceparent: unsampledParent }, { ...policy, ratio: 1 }, edge)).toBe(false);
    }
  });

  it('keeps the ratio of requests that start a trace at the edge, and none in a service', () => {
    expect(keptShare(true, {})).toBeGreaterThan(0.005);
    expect(keptShare(true, {})).toBeLessThan(0.015);
    expect(keptShare(true, { OTEL_TRACES_SAMPLER_ARG: '0.5' })).toBeGreaterThan(0.45);
    expect(keptShare(true, { OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBe(1);
    expect(keptShare(false, { OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBe(0);
    // a malformed traceparent is no decision
    expect(tracesRequest({ traceparent: 'nonsense' }, samplingPolicy({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' }), false)).toBe(false);
    // not parent-based: a service decides alone
    expect(keptShare(false, { OTEL_TRACES_SAMPLER: 'always_on' })).toBe(1);
    expect(tracesRequest({ traceparent: sampledParent }, samplingPolicy({ OTEL_TRACES_SAMPLER: 'always_off' }), true)).toBe(false);
  });

  it('records a server span that starts a trace, samples other roots at the ratio and follows a parent', () => {
    const sampler = samplerFor(samplingPolicy({ OTEL_TRACES_SAMPLER_ARG: '0' }));
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_ID, 'GET', SpanKind.SERVER, {}, []).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(sampler.shouldSample(ROOT_CONTEXT, TRACE_ID, 'publish', SpanKind.PRODUCER, {}, []).decision).toBe(SamplingDecision.NOT_RECORD);
    const parent = (flags: TraceFlags) =>
      trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: flags, isRemote: true });
    expect(sampler.shouldSample(parent(TraceFlags.SAMPLED), TRACE_ID, 'query', SpanKind.CLIENT, {}, []).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(sampler.shouldSample(parent(TraceFlags.NONE), TRACE_ID, 'GET', SpanKind.SERVER, {}, []).decision).toBe(SamplingDecision.NOT_RECORD);
  });
});
