import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import { restoreUserBlocks, type UserBlocksDeps } from '../application/restore-user-blocks';

/** Checks every `everyMs` that Redis still holds the frozen users' blocks, and writes them again if not. */
export function restoreUserBlocksJob(deps: UserBlocksDeps, everyMs: number, log: Logger): Job {
  return periodicJob(
    'restore user blocks',
    everyMs,
    async () => {
      const written = await restoreUserBlocks(deps);
      // none on a fresh install; any other time Redis lost its data, which operators want to know
      if (written) log.warn({ blocks: written }, 'Redis had lost the frozen users’ blocks: written again');
    },
    log,
  );
}
