/**
 * What a process's `/readyz` answers (ADR 0070). Two kinds of check:
 * - its own conditions (its start finished, not stopping, a service's own state): what this one
 *   process cannot serve while another could. One false takes the process out of rotation: 503
 *   `not_ready`.
 * - the backing services it uses (database, broker, Redis): shared by every replica, so taking this
 *   one out would only move its requests to replicas that fail the same way, and taking them all out
 *   turns a partial outage into a total one. One false is reported: 200 `degraded`, the check named.
 */
export type ReadinessStatus = 'ready' | 'degraded' | 'not_ready';

export interface ReadinessView {
  status: ReadinessStatus;
  /** every check, own and backing, by name */
  checks: Record<string, boolean>;
}

export interface ReadinessChecks {
  /** one false: 503 `not_ready` */
  own: Record<string, boolean>;
  /** one false: 200 `degraded` */
  backing?: Record<string, boolean>;
}

export function readinessView({ own, backing = {} }: ReadinessChecks): ReadinessView {
  const allTrue = (checks: Record<string, boolean>) => Object.values(checks).every(Boolean);
  const status = !allTrue(own) ? 'not_ready' : allTrue(backing) ? 'ready' : 'degraded';
  return { status, checks: { ...backing, ...own } };
}

/** The status a load balancer or readiness probe reads: only `not_ready` takes the process out. */
export function readinessStatusCode(view: ReadinessView): 200 | 503 {
  return view.status === 'not_ready' ? 503 : 200;
}

/**
 * `check`'s answer, or null when it fails or takes longer than `ms`: a probe's own timeout is short
 * (3 s in Kubernetes), and a check that outlived it would fail the probe however it is classified.
 */
export function withinOrNull<T>(ms: number, check: () => Promise<T>): Promise<T | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    check()
      .then(resolve, () => resolve(null))
      .finally(() => clearTimeout(timer));
  });
}

/** `check`'s answer, or false when it fails or takes longer than `ms` (withinOrNull). */
export async function checkWithin(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  return (await withinOrNull(ms, check)) ?? false;
}
