import { IdParams, Page, PageQuery, EmptyBody, QueryBoolean, Timestamp, Id } from '../common';
import { z } from '../zod';
import { defineRoute } from './route';

export const Notification = z
  .object({
    id: Id,
    user_id: Id,
    kind: z.string().openapi({ description: 'what happened, usually the event type', example: 'order.paid' }),
    title: z.string(),
    body: z.string(),
    biz_type: z.string().nullable().openapi({ example: 'order' }),
    biz_id: z.string().nullable(),
    read: z.boolean(),
    read_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .openapi('Notification');

export const listNotifications = defineRoute({
  id: 'listNotifications',
  service: 'notify',
  method: 'get',
  path: '/api/notifications',
  auth: 'user',
  summary: 'The caller’s in-app notifications',
  tags: ['notifications'],
  query: PageQuery.extend({ read: QueryBoolean.optional() }),
  success: { status: 200, description: 'notifications, newest first', schema: Page(Notification) },
  // Notify is not implemented yet: the gateway answers 501 until the service is.
  errors: [400, 401, 403, 501],
});

export const markNotificationRead = defineRoute({
  id: 'markNotificationRead',
  service: 'notify',
  method: 'post',
  path: '/api/notifications/{id}/read',
  auth: 'user',
  summary: 'Mark a notification read (repeating it changes nothing)',
  tags: ['notifications'],
  params: IdParams,
  body: EmptyBody,
  success: { status: 200, description: 'the notification', schema: Notification },
  errors: [400, 401, 403, 404, 501],
});

export const notifyRoutes = [listNotifications, markNotificationRead];
