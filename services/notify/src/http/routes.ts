import {
  listBackOfficeNotifications as listBackOfficeNotificationsRoute,
  listNotifications as listNotificationsRoute,
  markAllNotificationsRead as markAllNotificationsReadRoute,
  markNotificationRead as markNotificationReadRoute,
  streamBackOfficeNotifications,
  streamNotifications,
} from '@market/contracts';
import { route, type RouteBinding } from '@market/shared/http';
import type { NotifyDeps } from '../application/deps';
import { listBackOfficeNotifications, listNotifications, markAllNotificationsRead, markNotificationRead } from '../application/read-notifications';
import { openBackOfficeStream } from '../application/stream-back-office';
import { openNotificationStream } from '../application/stream-notifications';
import type { NotificationHub } from '../live/notification-hub';

export function notifyRouteBindings(deps: NotifyDeps, hub: NotificationHub): RouteBinding[] {
  return [
    route(listNotificationsRoute, ({ query, identity }) => listNotifications(deps, identity, query)),
    route(markAllNotificationsReadRoute, ({ identity }) => markAllNotificationsRead(deps, identity)),
    route(markNotificationReadRoute, ({ params, identity }) => markNotificationRead(deps, identity, params.id)),
    route(streamNotifications, ({ identity, req, res }) => openNotificationStream(deps, hub, identity, req.header('last-event-id'), res)),
    route(listBackOfficeNotificationsRoute, ({ query }) => listBackOfficeNotifications(deps, query)),
    route(streamBackOfficeNotifications, ({ identity, req, res }) => openBackOfficeStream(deps, hub, identity, req.header('last-event-id'), res)),
  ];
}
