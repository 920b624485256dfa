import { type Logger } from '@market/shared/logging';
import { periodicJob, type Job } from '@market/shared/service';
import type { OrdersDeps } from '../application/deps';
import { remindEndingOrders } from '../application/remind-ending-orders';

/** Reminds renters of the end of their rental every `everyMs`; replicas share the work (see remindEndingOrders). */
export function endReminder(deps: OrdersDeps, everyMs: number, log: Logger): Job {
  return periodicJob('order end reminder', everyMs, () => remindEndingOrders(deps), log);
}
