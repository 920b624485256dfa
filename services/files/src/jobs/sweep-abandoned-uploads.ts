import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import { sweepIncoming } from '../adapters/storage/sweep-incoming';

/** Every 15 minutes, removes uploads left in `incoming` for over an hour (a client that went away mid-upload). */
export function sweepAbandonedUploads(incoming: string, log: Logger): Job {
  return periodicJob('sweep abandoned uploads', 15 * 60_000, () => sweepIncoming(incoming, 60 * 60_000), log);
}
