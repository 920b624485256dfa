import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import { alertMoneyMismatches } from '../application/alert-money-mismatches';
import type { AdminDeps } from '../application/deps';

/** Compares the services' money figures every `everyMs` and alerts the back office to a mismatch. */
export function moneyVerification(deps: AdminDeps, everyMs: number, log: Logger): Job {
  return periodicJob('money verification', everyMs, () => alertMoneyMismatches(deps), log);
}
