import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { WalletDeps } from '../application/deps';
import { reconcileYesterday } from '../application/reconcile-day';

/** Every `everyMs`, reconciles yesterday's bills of each provider once they are published; one not out yet is asked for at the next tick. */
export function reconcileYesterdayJob(deps: WalletDeps, everyMs: number, log: Logger): Job {
  return periodicJob('reconcile yesterday’s bills', everyMs, () => reconcileYesterday(deps), log);
}
