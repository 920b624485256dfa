import { eventConsumers, type EventType } from '@market/contracts';
import { type EventHandler, type EventHandlers } from '@market/shared/events';
import { recordNotifications } from '../application/record-notifications';

/** Every event notify consumes becomes its notifications; the kit runs each in one transaction with its inbox row. */
export function notifyEventHandlers(channel: string): EventHandlers {
  const record: EventHandler<EventType> = (event, tx) => recordNotifications(tx, channel, event);
  return Object.fromEntries(eventConsumers.notify.map((type) => [type, record])) as EventHandlers;
}
