import type { Notification, z } from '@market/contracts';
import type { NotificationRow } from '../persistence/notification-repository';

export type NotificationView = z.infer<typeof Notification>;

export function toNotificationView(row: NotificationRow): NotificationView {
  return {
    id: row.id,
    user_id: row.user_id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    data: row.data,
    biz_type: row.biz_type,
    biz_id: row.biz_id,
    read: row.read_at !== null,
    read_at: row.read_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
