import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { WalletDeps } from '../application/deps';
import { resolveDueRefunds } from '../application/send-refund';

/** Every `everyMs`, sends or asks again about the refunds whose next look is due. */
export function resolveDueRefundsJob(deps: WalletDeps, everyMs: number, log: Logger): Job {
  return periodicJob('resolve refunds being sent', everyMs, () => resolveDueRefunds(deps), log);
}
