import type { EventType } from '@market/contracts';
import type { Tx } from '@market/shared/db';
import type { DomainEvent } from '@market/shared/events';
import { backOfficeNotificationsFor } from '../domain/back-office-events';
import { notificationsFor } from '../domain/notification-messages';
import { insertNotifications } from '../persistence/notification-repository';

/** Turns one event into its notifications (the parties' and the back office's), inside the inbox transaction that records the event as handled. */
export async function recordNotifications<T extends EventType>(tx: Tx, channel: string, event: DomainEvent<T>) {
  const drafts = [...notificationsFor(event.type, event.data), ...backOfficeNotificationsFor(event.type, event.data)];
  if (drafts.length > 0) await insertNotifications(tx, channel, event.id, drafts);
}
