import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { Queryable } from '@market/shared/db';
import { forgetQuietLoginFailures } from '../persistence/login-failures';

/** Forgets login failures that have gone quiet, hourly, so the counts that lock a login out stay recent. */
export function forgetQuietLoginFailuresJob(db: Queryable, log: Logger): Job {
  return periodicJob('forget quiet login failures', 60 * 60_000, () => forgetQuietLoginFailures(db), log);
}
