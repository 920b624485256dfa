import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { Queryable } from '@market/shared/db';
import { purgeExpiredRefreshTokens } from '../persistence/session-repository';

/** Deletes refresh tokens past their expiry, hourly: they can no longer be used, only take room. */
export function purgeExpiredRefreshTokensJob(db: Queryable, log: Logger): Job {
  return periodicJob('purge expired refresh tokens', 60 * 60_000, () => purgeExpiredRefreshTokens(db), log);
}
