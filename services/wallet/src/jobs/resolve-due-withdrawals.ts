import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { WalletDeps } from '../application/deps';
import { resolveDueWithdrawals } from '../application/send-withdrawal';

/** Every `everyMs`, sends or asks again about the withdrawals whose next look is due. */
export function resolveDueWithdrawalsJob(deps: WalletDeps, everyMs: number, log: Logger): Job {
  return periodicJob('resolve withdrawals being sent', everyMs, () => resolveDueWithdrawals(deps), log);
}
