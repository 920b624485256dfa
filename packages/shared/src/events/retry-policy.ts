import type { FailureKind } from '../errors';

export interface RetryPolicy {
  /** attempts after which an event that moves no money is parked; the attempt at which a waiting money event is reported */
  maxAttempts: number;
  /** first retry delay, doubled each attempt */
  baseDelayMs: number;
  /** longest retry delay */
  maxDelayMs: number;
}

export type RetryDecision = { action: 'park' } | { action: 'retry'; delayMs: number; alert: boolean };

/**
 * What the inbox does with an event whose handler failed for the `attempts`-th time: a permanent
 * failure is parked at once; a transient one is retried after a capped exponential delay. An event
 * that moves no money is parked after `maxAttempts`; one that moves money is never given up on
 * (ADR 0026) and, from `maxAttempts` on, raises an alert (once) so an operator sees it waiting.
 */
export function decideRetry(kind: FailureKind, movesMoney: boolean, attempts: number, policy: RetryPolicy): RetryDecision {
  if (kind === 'permanent') return { action: 'park' };
  if (!movesMoney && attempts >= policy.maxAttempts) return { action: 'park' };
  // 2^(attempts-1) overflows to Infinity long after the cap applies, which Math.min handles.
  const delayMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempts - 1));
  return { action: 'retry', delayMs, alert: movesMoney && attempts >= policy.maxAttempts };
}
