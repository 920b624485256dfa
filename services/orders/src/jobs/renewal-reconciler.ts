import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { OrdersDeps } from '../application/deps';
import { reconcileRenewals } from '../application/reconcile-renewals';

/** Settles renewals whose charge outcome is unknown by asking the wallet, every `everyMs` (ADR 0065). */
export function renewalReconciler(deps: OrdersDeps, everyMs: number, log: Logger): Job {
  return periodicJob('order renewal reconciler', everyMs, () => reconcileRenewals(deps, log), log);
}
