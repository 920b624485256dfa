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

/** One event's notifications, as an event handler drafts them. */
export interface EventNotifications {
  eventId: string;
  drafts: NotificationDraft[];
}

/**
 * Writes the notifications of several events (an inbox batch's) in the caller's transaction in one
 * statement, whatever their number: each round trip costs CPU on both sides, and an event makes
 * several. The drafts travel as parallel arrays so the text, and the statement the kit prepares for
 * it, never change.
 *
 * A user's seqs are handed out gap-free under the lock of their `notification_streams` row (see
 * the migration). ON CONFLICT DO UPDATE may touch a row only once per statement, so each user is
 * counted first and their row advanced by the count; their drafts then take the numbers up to the
 * new `last_seq` in the order they were given, event after event. Postgres hands the rows of an
 * INSERT … SELECT to the insert one at a time in the order of its ORDER BY, inserting or locking each
 * before it reads the next, and never runs a writing statement in parallel: every statement takes
 * its users' rows in one fixed order, so two addressing the same people cannot lock them crosswise.
 * That order is bytewise (COLLATE "C"), whatever the database's collation, as replicas of earlier
 * releases sort users in JavaScript: during a rollout they cannot deadlock with this one either.
 *
 * The NOTIFY, one per user, reaches every replica when the transaction commits and never if it
 * rolls back.
 */
export async function insertNotifications(tx: Tx, channel: string, events: readonly EventNotifications[]) {
  const drafts = events.flatMap(({ eventId, drafts: ofEvent }) => ofEvent.map((draft) => ({ eventId, draft })));
  if (drafts.length === 0) return;
  await tx.query(
    `WITH stream AS (
       INSERT INTO notification_streams (user_id, last_seq)
       SELECT user_id, count(*) FROM unnest($3::text[]) AS d(user_id) GROUP BY user_id ORDER BY user_id COLLATE "C"
       ON CONFLICT (user_id) DO UPDATE SET last_seq = notification_streams.last_seq + EXCLUDED.last_seq
       RETURNING user_id, last_seq
     ), written AS (
       INSERT INTO notifications (id, user_id, seq, kind, title, body, data, biz_type, biz_id, event_id)
       SELECT d.id, d.user_id,
              s.last_seq - count(*) OVER (PARTITION BY d.user_id) + row_number() OVER (PARTITION BY d.user_id ORDER BY d.nth),
              d.kind, d.title, d.body, d.data, d.biz_type, d.biz_id, d.event_id
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::text[], $10::uuid[])
              WITH ORDINALITY AS d(id, user_id, kind, title, body, data, biz_type, biz_id, event_id, nth)
       JOIN stream s USING (user_id)
     )
     SELECT pg_notify($1, user_id) FROM stream`,
    [
      channel,
      drafts.map(() => uuidv7()),
      drafts.map(({ draft }) => draft.user_id),
      drafts.map(({ draft }) => draft.kind),
      drafts.map(({ draft }) => draft.title),
      drafts.map(({ draft }) => draft.body),
      drafts.map(({ draft }) => JSON.stringify(draft.data)),
      drafts.map(({ draft }) => draft.biz_type),
      drafts.map(({ draft }) => draft.biz_id),
      drafts.map(({ eventId }) => eventId),
    ],
  );
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
