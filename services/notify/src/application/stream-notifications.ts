import type { ServerResponse } from 'node:http';
import { type Revocations, type UserIdentity } from '@market/shared/auth';
import { withTimeout } from '@market/shared/events';
import type { NotificationHub, StreamSource } from '../live/notification-hub';
import { lastPosition, notificationsAfter } from '../persistence/notification-repository';
import type { NotifyDeps } from './deps';
import { toNotificationView } from './notification-view';

export function streamSource(deps: NotifyDeps, revocations: Revocations): StreamSource {
  return {
    async after(userId, seq, limit) {
      const rows = await notificationsAfter(deps.db, userId, seq, limit);
      return rows.map((row) => ({ seq: Number(row.seq), kind: row.kind, view: toNotificationView(row) }));
    },
    // Logout, refresh-token reuse and freezes revoke the session where the gateway looks; without
    // an answer from Redis the stream ends, as the gateway would refuse the request.
    stillAllowed: (caller) =>
      withTimeout(revocations.sessionState('user', caller.sub, caller.sid), 2000, 'checking the session').then(
        (state) => state === 'active',
        () => false,
      ),
  };
}

/**
 * Opens the caller's live stream: after `Last-Event-ID` it replays what the client missed;
 * without one it starts at the newest notification, sending only what comes next.
 */
export async function openNotificationStream(deps: NotifyDeps, hub: NotificationHub, caller: UserIdentity, lastEventId: string | undefined, res: ServerResponse) {
  const position = lastEventId ? Number(lastEventId) : await lastPosition(deps.db, caller.sub);
  hub.open(caller, position, res);
}
