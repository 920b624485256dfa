import type { EventType } from '@market/contracts';
import type { Tx } from '@market/shared/db';
import type { DomainEvent } from '@market/shared/events';
import { backOfficeNotificationsFor } from '../domain/back-office-events';
import { notificationsFor } from '../domain/notification-messages';
import { insertNotifications } from '../persistence/notification-repository';

/**
 * Turns events into their notifications (the parties' and the back office's), inside the inbox
 * transaction that records them as handled: a batch's events, of whatever types, in one statement.
 */
export async function recordNotifications<T extends EventType>(tx: Tx, channel: string, events: ReadonlyArray<DomainEvent<T>>) {
  await insertNotifications(
    tx,
    channel,
    events.map((event) => ({
      eventId: event.id,
      drafts: [...notificationsFor(event.type, event.data), ...backOfficeNotificationsFor(event.type, event.data)],
    })),
  );
}
