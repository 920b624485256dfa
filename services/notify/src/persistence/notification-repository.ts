import { v7 as uuidv7 } from 'uuid';
import { type Notification, type z } from '@market/contracts';
import {
  keysetPage,
  NEWEST_FIRST,
  updateReturning,
  type KeysetPageResult,
  type Queryable,
  type Tx,
} from '@market/shared/db';
import type { NotificationDraft } from '../domain/notification-messages';

export interface NotificationRow {
  id: string;
  user_id: string;
  seq: string;
  kind: string;
  title: string;
  body: string;
  data: z.infer<typeof Notification>['data'];
  biz_type: string | null;
  biz_id: string | null;
  read_at: Date | null;
  created_at: Date;
}

const COLUMNS = `id, user_id, seq, kind, title, body, data, biz_type, biz_id, read_at, created_at`;

/** The Postgres channel on which a commit announces a user's new notifications, one per schema. */
export function notificationChannel(schema: string) {
  return `notifications_${schema}`;
}

/**
 * Writes the event's notifications in the caller's transaction. Users are numbered in a fixed
 * order so two events addressing the same two people cannot lock their rows crosswise. The NOTIFY
 * is delivered to every replica when the transaction commits, and never if it rolls back (a
 * user's repeated NOTIFY in one transaction is delivered once). Each notification is one
 * statement: the user's next number, the row and the NOTIFY together (ADR 0068).
 */
export async function insertNotifications(tx: Tx, channel: string, eventId: string, drafts: NotificationDraft[]) {
  const sorted = [...drafts].sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0));
  for (const draft of sorted) {
    await tx.query(
      `WITH stream AS (
         INSERT INTO notification_streams (user_id, last_seq) VALUES ($2, 1)
         ON CONFLICT (user_id) DO UPDATE SET last_seq = notification_streams.last_seq + 1
         RETURNING last_seq
       ), written AS (
         INSERT INTO notifications (id, user_id, seq, kind, title, body, data, biz_type, biz_id, event_id)
         VALUES ($3, $2, (SELECT last_seq FROM stream), $4, $5, $6, $7, $8, $9, $10)
         RETURNING user_id
       )
       SELECT pg_notify($1, user_id) FROM written`,
      [channel, draft.user_id, uuidv7(), draft.kind, draft.title, draft.body, JSON.stringify(draft.data), draft.biz_type, draft.biz_id, eventId],
    );
  }
}

export function pageNotifications(
  db: Queryable,
  userId: string,
  filter: { unread?: boolean; kinds?: readonly string[]; limit: number; cursor?: string },
): Promise<KeysetPageResult<NotificationRow>> {
  const readFilter = filter.unread === undefined ? '' : filter.unread ? 'AND read_at IS NULL' : 'AND read_at IS NOT NULL';
  const kindFilter = filter.kinds ? 'AND kind = ANY($2::text[])' : '';
  return keysetPage<NotificationRow>(db, {
    query: `SELECT ${COLUMNS} FROM notifications WHERE user_id = $1 ${readFilter} ${kindFilter}`,
    params: filter.kinds ? [userId, filter.kinds] : [userId],
    orderBy: NEWEST_FIRST,
    limit: filter.limit,
    cursor: filter.cursor,
  });
}

export async function unreadCount(db: Queryable, userId: string): Promise<number> {
  const [{ count }]: Array<{ count: string }> = await db.query(
    `SELECT count(*) AS count FROM notifications WHERE user_id = $1 AND read_at IS NULL`,
    [userId],
  );
  return Number(count);
}

/** Marks one of the user's notifications read; a repeat keeps the first read time. Null when it is not theirs. */
export async function markRead(db: Queryable, userId: string, id: string): Promise<NotificationRow | null> {
  const rows = await updateReturning<NotificationRow>(
    db,
    `UPDATE notifications SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
    [id, userId],
  );
  return rows[0] ?? null;
}

export async function markAllRead(db: Queryable, userId: string): Promise<number> {
  const rows = await updateReturning<{ id: string }>(
    db,
    `UPDATE notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL RETURNING id`,
    [userId],
  );
  return rows.length;
}

/** The user's notifications after stream position `seq`, in stream order. */
export function notificationsAfter(db: Queryable, userId: string, seq: number, limit: number): Promise<NotificationRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM notifications WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [userId, seq, limit]);
}

/** The position of the user's newest notification (0 before the first). */
export async function lastPosition(db: Queryable, userId: string): Promise<number> {
  const rows: Array<{ last_seq: string }> = await db.query(`SELECT last_seq FROM notification_streams WHERE user_id = $1`, [userId]);
  return rows[0] ? Number(rows[0].last_seq) : 0;
}
