import type { ServerResponse } from 'node:http';
import { serviceAddresses } from '@market/shared/config';
import { readinessStatusCode, readinessView, type ReadinessView } from '@market/shared/http';
import { type RedisClient } from '@market/shared/redis';
import type { GatewayConfig } from './config';

/** How long a readiness view is answered before it is checked again. */
const GATEWAY_VIEW_MS = 1000;

export function sendReadiness(res: ServerResponse, readiness: ReadinessView, statusCode: number) {
  const body = JSON.stringify(readiness);
  res.statusCode = statusCode;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(body);
}

/**
 * One check at a time, its answer kept for `ttlMs`: callers during a check share it, callers
 * after it read the kept answer, so a burst of probes costs one check, not one each.
 */
function cached(check: () => Promise<ReadinessView>, ttlMs: number): () => Promise<ReadinessView> {
  let kept: { at: number; readiness: ReadinessView } | undefined;
  let running: Promise<ReadinessView> | undefined;
  return () => {
    if (kept && performance.now() - kept.at < ttlMs) return Promise.resolve(kept.readiness);
    running ??= check().then((readiness) => {
      kept = { at: performance.now(), readiness };
      running = undefined;
      return readiness;
    });
    return running;
  };
}

/** What one replica's `/readyz` said: whether it is in rotation, and its checks (none when it did not answer). */
async function askReplica(url: string): Promise<{ inRotation: boolean; checks: Record<string, boolean> }> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as Partial<ReadinessView>;
    return { inRotation: res.ok, checks: body.checks ?? {} };
  } catch {
    return { inRotation: false, checks: {} };
  }
}

/**
 * The gateway's two readiness views (ADR 0056, ADR 0070).
 * - `gateway()`, its public `/readyz`: whether this gateway can serve. It has no condition of its
 *   own once it listens (its configuration is checked and Redis connected before; stopping, it
 *   refuses new connections at once), and Redis is every gateway pod's alike: while it is away,
 *   requests with a token answer 503 (revocation fails closed) and anonymous ones keep working, so
 *   Redis away is reported (`degraded`, 200), never a reason to take the pod out. A service down
 *   is not either: its routes answer 503 while the others work. Anonymous and public, so it is
 *   answered from a view checked at most once a second.
 * - `system()`, for operators on the metrics port: Redis, every service (in rotation at one
 *   replica at least) and, as `<service>.<check>`, each check a replica of it reports false
 *   (its database, broker, Redis, own conditions): `ready` (200) when every check holds, else
 *   `degraded` (a backing service away, every service in rotation) or `not_ready` (a service with
 *   no replica in rotation), both 503 so an alert on it fires. One fan-out at a time, never kept:
 *   it is what `npm start` waits on and what an operator asks when something is wrong.
 */
export function createReadiness(config: GatewayConfig, redis: RedisClient) {
  const addresses = serviceAddresses(config);
  const redisCheck = () => redis.ping().then(() => true, () => false);
  const gateway = cached(async () => readinessView({ own: {}, backing: { redis: await redisCheck() } }), GATEWAY_VIEW_MS);
  const system = cached(async () => {
    const own: Record<string, boolean> = {};
    const backing: Record<string, boolean> = { redis: await redisCheck() };
    await Promise.all(
      Object.entries(addresses).map(async ([service, urls]) => {
        const replicas = await Promise.all(urls.map(askReplica));
        own[service] = replicas.some((replica) => replica.inRotation);
        for (const { checks } of replicas) {
          for (const [check, holds] of Object.entries(checks)) {
            const name = `${service}.${check}`;
            backing[name] = (backing[name] ?? true) && holds;
          }
        }
      }),
    );
    return readinessView({ own, backing });
  }, 0);
  return { gateway, system };
}

/** The public `/readyz`'s status: 503 only when the gateway itself cannot serve. */
export const gatewayStatusCode = readinessStatusCode;

/** The operators' view's status: 200 only when nothing is wrong, so an alert probing it fires on `degraded` too. */
export const systemStatusCode = (view: ReadinessView) => (view.status === 'ready' ? 200 : 503);

export type Readiness = ReturnType<typeof createReadiness>;
