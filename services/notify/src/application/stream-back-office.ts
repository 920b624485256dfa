import type { ServerResponse } from 'node:http';
import { streamBackOfficeNotifications } from '@market/contracts';
import { type AdminIdentity } from '@market/shared/auth';
import { BACK_OFFICE } from '../domain/notification-messages';
import type { NotificationHub } from '../live/notification-hub';
import { lastPosition } from '../persistence/notification-repository';
import type { NotifyDeps } from './deps';

/** The permission the gateway checked when the stream opened; the heartbeat checks the admin still holds it. */
export const BACK_OFFICE_STREAM_PERMISSION = streamBackOfficeNotifications.permission;

/**
 * Opens an admin's live stream of the back office's notifications (queue changes and alerts), one
 * stream every admin shares: after `Last-Event-ID` it replays what the console missed, without one
 * it starts at the newest.
 */
export async function openBackOfficeStream(deps: NotifyDeps, hub: NotificationHub, caller: AdminIdentity, lastEventId: string | undefined, res: ServerResponse) {
  const position = lastEventId ? Number(lastEventId) : await lastPosition(deps.db, BACK_OFFICE);
  hub.open(caller, BACK_OFFICE, position, res);
}
