import type { Db } from '@market/shared/db';

/** What the use cases run against. */
export interface NotifyDeps {
  db: Db;
  /** the Postgres channel new notifications are announced on (see notificationChannel) */
  channel: string;
}
