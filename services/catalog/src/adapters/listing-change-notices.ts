import { type Logger } from '@market/shared/logging';
import { type RedisClient } from '@market/shared/redis';

/**
 * Tells every gateway that what an anonymous caller sees of the listings may have changed, so each
 * drops the answers of catalog it keeps (ADR 0068). Called after each commit, so a gateway that
 * asks again on hearing it reads the change. It never holds up or fails the commit: a notice lost
 * (Redis away from catalog only) leaves a gateway's kept answers to their short bound, and a
 * gateway whose own subscription is down keeps none meanwhile.
 */
export function listingChangeNotices(redis: RedisClient, channel: string, log: Logger): () => void {
  let failing = false;
  const sent = () => {
    if (!failing) return;
    failing = false;
    log.info('listing change notices reach Redis again');
  };
  const lost = (err: Error) => {
    if (failing) return;
    failing = true;
    log.warn({ err: { message: err.message } }, 'a listing change notice did not reach Redis: gateways show it within their micro-cache bound');
  };
  return () => {
    redis.publish(channel, '1').then(sent, lost);
  };
}
