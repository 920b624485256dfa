import type { ServerResponse } from 'node:http';
import { serviceAddresses } from '@market/shared/config';
import { type RedisClient } from '@market/shared/redis';
import type { GatewayConfig } from './config';

export interface ReadinessView {
  status: 'ready' | 'not_ready';
  checks: Record<string, boolean>;
}

/** How long a readiness view is answered before it is checked again. */
const GATEWAY_VIEW_MS = 1000;

function view(checks: Record<string, boolean>): ReadinessView {
  return { status: Object.values(checks).every(Boolean) ? 'ready' : 'not_ready', checks };
}

export function sendReadiness(res: ServerResponse, readiness: ReadinessView) {
  const body = JSON.stringify(readiness);
  res.statusCode = readiness.status === 'ready' ? 200 : 503;
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

/**
 * The gateway's two readiness views (ADR 0056).
 * - `gateway()`, its public `/readyz`: whether this gateway can serve, from what it depends on
 *   itself — Redis (revocations, shared rate limits); its configuration is checked before it
 *   listens. A service down does not make it unready: its routes answer 503 while the others
 *   work, and taking every gateway pod out of the load balancer would take those down too.
 *   Anonymous and public, so it is answered from a view checked at most once a second.
 * - `system()`, for operators on the metrics port: Redis and every service (ready at one replica
 *   at least, by its own `/readyz`). One fan-out at a time, never kept: it is what `npm start`
 *   waits on and what an operator asks when something is wrong.
 */
export function createReadiness(config: GatewayConfig, redis: RedisClient) {
  const addresses = serviceAddresses(config);
  const redisCheck = () => redis.ping().then(() => true, () => false);
  const gateway = cached(async () => view({ redis: await redisCheck() }), GATEWAY_VIEW_MS);
  const system = cached(async () => {
    const checks: Record<string, boolean> = { redis: await redisCheck() };
    await Promise.all(
      Object.entries(addresses).map(async ([service, urls]) => {
        const replicas = await Promise.all(
          urls.map((url) => fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false)),
        );
        checks[service] = replicas.some(Boolean);
      }),
    );
    return view(checks);
  }, 0);
  return { gateway, system };
}

export type Readiness = ReturnType<typeof createReadiness>;
