import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { WalletDeps } from '../application/deps';
import { expireOverduePayments } from '../application/recharge';

/** Every `everyMs`, closes the pending recharges past their deadline at the gateway (see expireOverduePayments); one left undecided is looked at again a scan later. */
export function expireOverduePaymentsJob(deps: WalletDeps, everyMs: number, log: Logger): Job {
  return periodicJob('expire overdue recharge payments', everyMs, () => expireOverduePayments(deps, new Date(), everyMs), log);
}
