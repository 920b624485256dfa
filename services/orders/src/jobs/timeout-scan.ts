import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import { applyDueTimeouts } from '../application/apply-timeouts';
import type { OrdersDeps } from '../application/deps';

/** Applies the timed moves of docs/rules.md §4 every `everyMs`; replicas share the work (see applyDueTimeouts). */
export function timeoutScan(deps: OrdersDeps, everyMs: number, log: Logger): Job {
  return periodicJob('order timeout scan', everyMs, () => applyDueTimeouts(deps, log), log);
}
