import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import { restoreRevocations, type RevocationsDeps } from '../application/restore-revocations';

/** Checks every `everyMs` that Redis still holds the users' revocations, and writes them again if not. */
export function restoreRevocationsJob(deps: RevocationsDeps, everyMs: number, log: Logger): Job {
  return periodicJob(
    'restore revocations',
    everyMs,
    async () => {
      const written = await restoreRevocations(deps);
      // none on a fresh install; any other time Redis lost its data, which operators want to know
      if (written && written.blocks + written.sessions > 0) log.warn(written, 'Redis had lost the users’ revocations (frozen users’ blocks, recently ended sessions): written again');
    },
    log,
  );
}
