import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { WalletDeps } from '../application/deps';
import { queryPendingPayments } from '../application/recharge';

/** Every `everyMs`, asks the provider about recharges still pending: an unknown outcome is asked again, never guessed. */
export function queryPendingPaymentsJob(deps: WalletDeps, everyMs: number, log: Logger): Job {
  return periodicJob('query pending recharge payments', everyMs, () => queryPendingPayments(deps), log);
}
