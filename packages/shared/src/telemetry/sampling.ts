import type { IncomingHttpHeaders } from 'node:http';
import { SpanKind, type Attributes, type Context, type Link } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace-base';

/**
 * Sampling decided before any span exists (ADR 0068, second round).
 *
 * The SDK's samplers decide when a span starts, but by then the HTTP instrumentation has already
 * built the span's attributes, and an unsampled request still gets its non-recording spans, the
 * wrapping of every response method and of every Express layer, and the spans of its queries and
 * calls: per request, whatever the ratio, which is why 1% sampling cost as much as tracing every
 * request. So an incoming request is decided from its headers alone, and one that is not sampled
 * never reaches the instrumentation (`./http-instrumentation`): no spans down the line, no
 * `traceparent` sent on.
 */

/** The default: traces started at the edge are kept one in a hundred; a caller's decision is followed. */
export const DEFAULT_SAMPLER = 'parentbased_traceidratio';
export const DEFAULT_RATIO = 0.01;

export interface SamplingPolicy {
  /** share of traces started here that are kept, 0..1 */
  ratio: number;
  /** whether a caller's sampled `traceparent` is followed (parent-based) or ignored (each span decides alone) */
  parentBased: boolean;
}

const PARENT_BASED = 'parentbased_';

/**
 * The policy the standard variables name (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`), with
 * `parentbased_traceidratio` at 1% when unset. An unknown sampler name is a configuration mistake.
 */
export function samplingPolicy(env: NodeJS.ProcessEnv = process.env): SamplingPolicy {
  const name = env.OTEL_TRACES_SAMPLER || DEFAULT_SAMPLER;
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = () => {
    if (arg === undefined || arg === '') return name === DEFAULT_SAMPLER && !env.OTEL_TRACES_SAMPLER ? DEFAULT_RATIO : 1;
    const value = Number(arg);
    if (!Number.isFinite(value) || value < 0 || value > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${arg}"`);
    return value;
  };
  const parentBased = name.startsWith(PARENT_BASED);
  switch (parentBased ? name.slice(PARENT_BASED.length) : name) {
    case 'always_on':
      return { ratio: 1, parentBased };
    case 'always_off':
      return { ratio: 0, parentBased };
    case 'traceidratio':
      return { ratio: ratio(), parentBased };
    default:
      throw new Error(`OTEL_TRACES_SAMPLER "${name}" is not supported here (always_on, always_off, traceidratio and their parentbased_ forms are)`);
  }
}

/** The sampled flag of a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), or null when there is none or it is malformed. */
function parentSampled(traceparent: string | string[] | undefined): boolean | null {
  if (typeof traceparent !== 'string' || traceparent.length < 55 || traceparent[2] !== '-' || traceparent[52] !== '-') return null;
  const flags = Number.parseInt(traceparent.slice(53, 55), 16);
  return Number.isNaN(flags) ? null : (flags & 1) === 1;
}

/**
 * Whether an incoming request is traced. A request carrying a caller's decision follows it when
 * the policy is parent-based. Without one, the edge (the gateway, where outside requests start)
 * keeps `ratio` of them; a service keeps none, since every request it serves comes through the
 * gateway or another service, which send a `traceparent` exactly when the trace is kept (a
 * request without one belongs to a trace that was not).
 */
export function tracesRequest(headers: IncomingHttpHeaders, policy: SamplingPolicy, edge: boolean, random: () => number = Math.random): boolean {
  const parent = policy.parentBased ? parentSampled(headers.traceparent) : null;
  if (parent !== null) return parent;
  if (!edge && policy.parentBased) return false;
  return policy.ratio >= 1 || (policy.ratio > 0 && random() < policy.ratio);
}

/**
 * The SDK's sampler for the same policy. An HTTP server span exists only for a request
 * `tracesRequest` kept, so a server span that starts a trace is recorded (the ratio was already
 * applied; applying it again would square it); any other span starting a trace (a consumer, a
 * relay's publish, a timer's query) is kept at the ratio, and a span with a parent follows it.
 */
export function samplerFor(policy: SamplingPolicy): Sampler {
  const ratio: Sampler =
    policy.ratio >= 1 ? new AlwaysOnSampler() : policy.ratio <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(policy.ratio);
  const keptServer: SamplingResult = { decision: SamplingDecision.RECORD_AND_SAMPLED };
  const root: Sampler = {
    shouldSample: (context: Context, traceId: string, spanName: string, spanKind: SpanKind, attributes: Attributes, links: Link[]) =>
      spanKind === SpanKind.SERVER ? keptServer : ratio.shouldSample(context, traceId, spanName, spanKind, attributes, links),
    toString: () => `RootOf(${ratio.toString()})`,
  };
  return policy.parentBased ? new ParentBasedSampler({ root }) : root;
}
