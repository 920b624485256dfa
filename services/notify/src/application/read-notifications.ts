import { type UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { ALERT_KINDS } from '../domain/back-office-events';
import { BACK_OFFICE } from '../domain/notification-messages';
import { markAllRead, markRead, pageNotifications, unreadCount } from '../persistence/notification-repository';
import type { NotifyDeps } from './deps';
import { toNotificationView } from './notification-view';

export async function listNotifications(deps: NotifyDeps, caller: UserIdentity, query: { unread?: boolean; limit: number; cursor?: string }) {
  const page = await pageNotifications(deps.db, caller.sub, query);
  return { items: page.items.map(toNotificationView), next_cursor: page.next_cursor, unread_count: await unreadCount(deps.db, caller.sub) };
}

/** Someone else's notification is answered exactly like one that does not exist. */
export async function markNotificationRead(deps: NotifyDeps, caller: UserIdentity, id: string) {
  const row = isUuid(id) ? await markRead(deps.db, caller.sub, id) : null;
  if (!row) throw new NotFound('notification not found');
  return toNotificationView(row);
}

export async function markAllNotificationsRead(deps: NotifyDeps, caller: UserIdentity) {
  const marked = await markAllRead(deps.db, caller.sub);
  return { marked, unread_count: await unreadCount(deps.db, caller.sub) };
}

/** The operator alerts (not the queue changes the back office's stream also carries), which every admin reads alike (their read state is not tracked per admin). */
export async function listBackOfficeNotifications(deps: NotifyDeps, query: { limit: number; cursor?: string }) {
  const page = await pageNotifications(deps.db, BACK_OFFICE, { ...query, kinds: ALERT_KINDS });
  return { items: page.items.map(toNotificationView), next_cursor: page.next_cursor };
}
