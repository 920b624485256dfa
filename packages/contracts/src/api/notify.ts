import { IdParams, Page, PageQuery, EmptyBody, QueryBoolean, Timestamp, Id } from '../common';
import { z } from '../zod';
import { routesOf, type ErrorStatus } from './route';

const notificationRoute = routesOf('notify', { tags: ['notifications'] });

export const NotificationData = z
  .record(z.string(), z.union([z.string(), z.number().int(), z.null()]))
  .openapi('NotificationData', {
    description:
      'what a client needs to link to the subject: ids (`order_id`, `listing_id`, `dispute_id`, `payment_id`) and amounts in fen',
    example: { order_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', listing_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5c', amount: 6400 },
  });

export const Notification = z
  .object({
    id: Id,
    user_id: Id,
    kind: z.string().openapi({ description: 'what happened: the event type it was built from', example: 'order.paid' }),
    title: z.string(),
    body: z.string(),
    data: NotificationData,
    biz_type: z.string().nullable().openapi({ example: 'order' }),
    biz_id: z.string().nullable(),
    read: z.boolean(),
    read_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .openapi('Notification');

export const NotificationPage = Page(Notification)
  .extend({ unread_count: z.number().int().min(0).openapi({ description: 'the caller’s unread notifications, all pages' }) })
  .openapi('NotificationPage');

export const listNotifications = notificationRoute('get /api/notifications', { id: 'listNotifications', auth: 'user',
  summary: 'The caller’s in-app notifications',
  query: PageQuery.extend({
    unread: QueryBoolean.optional().openapi({ description: '`true`: unread only; `false`: read only' }),
  }),
  success: { status: 200, description: 'notifications, newest first, with the unread count', schema: NotificationPage }, errors: [400, 401, 403],
});

export const markNotificationRead = notificationRoute('post /api/notifications/{id}/read', { id: 'markNotificationRead', auth: 'user',
  summary: 'Mark a notification read (repeating it changes nothing)',
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the notification', schema: Notification }, errors: [400, 401, 403, 404],
});

export const ReadAllResult = z
  .object({
    marked: z.number().int().min(0).openapi({ description: 'notifications this call marked read' }),
    unread_count: z.number().int().min(0),
  })
  .openapi('NotificationsReadAll');

export const markAllNotificationsRead = notificationRoute('post /api/notifications/read-all', { id: 'markAllNotificationsRead', auth: 'user',
  summary: 'Mark every notification of the caller read',
  body: EmptyBody,
  success: { status: 200, description: 'how many were marked', schema: ReadAllResult }, errors: [400, 401, 403],
});

/** Where a client resumes a stream: what every stream route documents. */
const LastEventIdHeader = z.object({
  'last-event-id': z
    .string()
    .regex(/^\d{0,15}$/, 'must be the id of an event of this stream')
    .optional()
    .openapi({ description: 'the `id:` of the last event received' }),
});

/** What a Server-Sent Events route of notify takes and answers, the caller's stream or the back office's. */
const EVENT_STREAM = {
  stream: true,
  query: z.object({}).strict(),
  headers: LastEventIdHeader,
  success: { status: 200 as const, description: 'an open `text/event-stream`', contentType: 'text/event-stream' as const },
  errors: [400, 401, 403] satisfies ErrorStatus[],
};

export const streamNotifications = notificationRoute('get /api/notifications/stream', { id: 'streamNotifications', auth: 'user',
  summary: 'Live stream of the caller’s new notifications (Server-Sent Events)',
  description: [
    'Each new notification arrives as `event: notification` with `data:` one `Notification` as JSON and `id:` its',
    'position in the caller’s stream. Reconnecting with `Last-Event-ID` (EventSource does this itself) first replays',
    'every notification after that position; without it the stream starts with what arrives from now on.',
    'A comment line (`: heartbeat`) comes every `NOTIFY_HEARTBEAT_MS` (15 s by default). The stream ends when the',
    'session is logged out or the user frozen (checked at each heartbeat, and at once on a freeze), after',
    '`NOTIFY_STREAM_MAX_AGE_MS`, and when the same user opens more than `NOTIFY_MAX_STREAMS_PER_USER` streams on one',
    'server (the oldest ends); a client reconnects with its last id and misses nothing.',
  ].join(' '),
  ...EVENT_STREAM,
});

export const listBackOfficeNotifications = notificationRoute('get /api/admin/notifications', { id: 'listBackOfficeNotifications', auth: 'admin',
  // alerts of waiting money events and the like: every back-office role sees the dashboard (ADR 0033)
  permission: 'dashboard.read',
  summary: 'The back office’s notifications: operator alerts raised by the services',
  description: [
    'Every `ops.alert` any service raised, newest first, for every admin: a money event that keeps failing and is',
    'being retried (`EVENT_WAITING`, with its id, type, attempts, first failure and last error in `data`) and its',
    'recovery (`EVENT_RECOVERED`), a gateway success after a payment failed or expired (`PAYMENT_LATE_SUCCESS`), an order',
    'past its disputed/abnormal deadline (`ORDER_OVERDUE`), a disagreement money:verify found between orders and wallet',
    '(`MONEY_MISMATCH`). `user_id` is `back-office`; `kind` is `ops.alert`; `data` holds the alert’s details.',
  ].join(' '),
  query: PageQuery,
  success: { status: 200, description: 'alerts, newest first', schema: Page(Notification) }, errors: [400, 401, 403],
});

export const streamBackOfficeNotifications = notificationRoute('get /api/admin/notifications/stream', { id: 'streamBackOfficeNotifications', auth: 'admin',
  // what the console's header badges follow: every back-office role sees the queue sizes on the dashboard (ADR 0033)
  permission: 'dashboard.read',
  summary: 'Live stream of the back office’s events (Server-Sent Events): queue changes and operator alerts',
  description: [
    'Each back-office event arrives as `event: notification` with `data:` one `Notification` (`user_id` `back-office`) and',
    '`id:` its position in the back office’s stream, the same for every admin. `kind` says what happened: a listing entered',
    'the review queue (`listing.submitted`) or left it (`listing.approved`, `listing.rejected`, `listing.deleted` of a listing',
    'under review), a dispute was opened (`dispute.opened`) or resolved (`dispute.resolved`), an operator alert was raised',
    '(`ops.alert`, also listed by `GET /api/admin/notifications`). An event tells that a queue changed, not its size: a client',
    'reads the sizes from `GET /api/admin/dashboard`. Reconnecting with `Last-Event-ID` replays what came after that',
    'position; without it the stream starts with what arrives from now on. A comment line (`: heartbeat`) comes every',
    '`NOTIFY_HEARTBEAT_MS`. The stream ends at once when the session is logged out, the admin disabled or its password',
    'reset, when its access token expires, and when the admin no longer holds `dashboard.read` (checked at each heartbeat);',
    'also after `NOTIFY_STREAM_MAX_AGE_MS`, and when the same admin opens more than `NOTIFY_MAX_STREAMS_PER_USER` streams',
    'on one server (the oldest ends). Browsers’ EventSource cannot send the bearer token: read it with fetch.',
  ].join(' '),
  ...EVENT_STREAM,
});

export const notifyRoutes = [
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  streamNotifications,
  listBackOfficeNotifications,
  streamBackOfficeNotifications,
];
