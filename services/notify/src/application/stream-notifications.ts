import type { ServerResponse } from 'node:http';
import { rolesAllow, type AdminRole } from '@market/contracts';
import { type Revocations, type UserIdentity } from '@market/shared/auth';
import { withTimeout } from '@market/shared/events';
import type { NotificationHub, StreamCaller, StreamSource } from '../live/notification-hub';
import { lastPosition, notificationsAfter } from '../persistence/notification-repository';
import type { NotifyDeps } from './deps';
import { toNotificationView } from './notification-view';
import { BACK_OFFICE_STREAM_PERMISSION } from './stream-back-office';

export function streamSource(deps: NotifyDeps, revocations: Revocations): StreamSource {
  return {
    async after(recipient, seq, limit) {
      const rows = await notificationsAfter(deps.db, recipient, seq, limit);
      return rows.map((row) => ({ seq: Number(row.seq), kind: row.kind, view: toNotificationView(row) }));
    },
    // Logout, refresh-token reuse, freezes and disables revoke the session where the gateway looks;
    // without an answer from Redis the stream ends, as the gateway would refuse the request.
    stillAllowed: (caller) => withTimeout(sessionAllows(revocations, caller), 2000, 'checking the session').catch(() => false),
  };
}

/** What the gateway would decide on the stream's request now: an admin must also still hold the stream's permission. */
async function sessionAllows(revocations: Revocations, caller: StreamCaller): Promise<boolean> {
  if (caller.kind === 'user') return (await revocations.sessionState('user', caller.sub, caller.sid)) === 'active';
  const session = await revocations.adminSessionState(caller.sub, caller.sid);
  return session.state === 'active' && rolesAllow(session.roles as AdminRole[], BACK_OFFICE_STREAM_PERMISSION);
}

/**
 * Opens the caller's live stream: after `Last-Event-ID` it replays what the client missed;
 * without one it starts at the newest notification, sending only what comes next.
 */
export async function openNotificationStream(deps: NotifyDeps, hub: NotificationHub, caller: UserIdentity, lastEventId: string | undefined, res: ServerResponse) {
  const position = lastEventId ? Number(lastEventId) : await lastPosition(deps.db, caller.sub);
  hub.open(caller, caller.sub, position, res);
}
