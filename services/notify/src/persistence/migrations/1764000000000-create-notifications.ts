import { sqlMigration } from '@market/shared/db';

export const CreateNotifications1764000000000 = sqlMigration(
  'CreateNotifications1764000000000',
  [
    // `seq` numbers a user's notifications in commit order (see notification_streams); the live
    // stream and Last-Event-ID resume page by it. `event_id` ties each row to the event it came from.
    `
      CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        user_id text NOT NULL,
        seq bigint NOT NULL,
        kind text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        data jsonb NOT NULL,
        biz_type text,
        biz_id text,
        event_id uuid NOT NULL,
        read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, seq),
        UNIQUE (event_id, user_id)
      )`,
    `CREATE INDEX notifications_user_newest ON notifications (user_id, created_at DESC, id DESC)`,
    `CREATE INDEX notifications_user_unread ON notifications (user_id, created_at DESC, id DESC) WHERE read_at IS NULL`,
    // One row per user holding the last seq handed out. Taking the next one locks the row until
    // the transaction ends, so a user's seqs commit in order and without gaps: a stream that has
    // sent seq n can never later find an n-1 committed behind it.
    `
      CREATE TABLE notification_streams (
        user_id text PRIMARY KEY,
        last_seq bigint NOT NULL
      )`,
  ],
  [`DROP TABLE notification_streams`, `DROP TABLE notifications`],
);
