import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { OrdersDeps } from '../application/deps';
import { publishClosedWindows } from '../application/publish-ratings';

/** Publishes the ratings whose window closed unanswered, every `everyMs`; replicas share the work (ADR 0066). */
export function ratingPublisher(deps: OrdersDeps, everyMs: number, log: Logger): Job {
  return periodicJob('rating publisher', everyMs, () => publishClosedWindows(deps), log);
}
