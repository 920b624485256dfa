import { allRoutes, type ServiceName } from '@market/contracts';
import { type Logger } from '@market/shared/logging';
import { LISTING_CHANGES_CHANNEL, listenToChannel, type RedisClient } from '@market/shared/redis';
import type { MicroCache } from './micro-cache';

/** Where each service whose answers the gateway may keep announces its changes (ADR 0068). */
const CHANGE_CHANNELS: Partial<Record<ServiceName, string>> = { catalog: LISTING_CHANGES_CHANNEL };

/**
 * Makes `cache` hear the change notices of every service with a route it may answer
 * (`edge.microCache`): deaf to the service until its channel is subscribed and while the
 * subscription is down (Redis away), so a notice missed never leaves an answer kept; and deaf for
 * good to a service without a channel, whose answers are then never kept.
 */
export function hearChanges(cache: MicroCache, redis: RedisClient, prefix: string, log: Logger): void {
  const answered = new Set(allRoutes.filter((route) => route.edge?.microCache).map((route) => route.service));
  for (const service of answered) {
    cache.hearing(service, false);
    const channel = CHANGE_CHANNELS[service];
    if (!channel) continue;
    listenToChannel(redis, `${prefix}${channel}`, {
      onMessage: () => cache.drop(service),
      onListening: (heard, closing) => {
        cache.hearing(service, heard);
        if (heard) log.info({ service }, 'micro-cache hears the service’s changes: it keeps its answers');
        // a shutdown ends the subscription on purpose: nothing to warn an operator of
        else if (!closing) log.warn({ service }, 'micro-cache lost the service’s change notices: it keeps none of its answers until it hears them again');
      },
      onFailure: (err) => log.warn({ service, err: { message: err.message } }, 'micro-cache cannot listen to the service’s changes yet: it keeps none of its answers'),
    });
  }
}
