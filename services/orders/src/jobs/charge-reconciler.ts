import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { OrdersDeps } from '../application/deps';
import { reconcileCharges } from '../application/reconcile-charges';

/** Settles orders whose charge outcome is unknown by asking the wallet, every `everyMs` (ADR 0028). */
export function chargeReconciler(deps: OrdersDeps, everyMs: number, log: Logger): Job {
  return periodicJob('order charge reconciler', everyMs, () => reconcileCharges(deps, log), log);
}
