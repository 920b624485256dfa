import { eventConsumers, type EventType } from '@market/contracts';
import { type EventHandlers, type EventRunHandler } from '@market/shared/events';
import { recordNotifications } from '../application/record-notifications';

/**
 * Every event notify consumes becomes its notifications; the kit runs each batch in one transaction
 * with its inbox rows, and one handler takes every type, so a batch's events are written in one statement.
 */
export function notifyEventHandlers(channel: string): EventHandlers {
  const record: EventRunHandler<EventType> = { together: (events, tx) => recordNotifications(tx, channel, events) };
  return Object.fromEntries(eventConsumers.notify.map((type) => [type, record])) as EventHandlers;
}
