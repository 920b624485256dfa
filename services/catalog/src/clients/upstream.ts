import { problems, type z } from '@market/shared';

/** An answer off the internal contract is the other service's fault: a 502 for our caller, not a 500. */
export function parseUpstream<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw problems.upstreamUnavailable(502);
  return parsed.data;
}
