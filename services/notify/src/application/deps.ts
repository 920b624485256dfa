import type { ServiceContext } from '@market/shared/service';

/** What the use cases run against. */
export interface NotifyDeps {
  db: ServiceContext['db'];
  /** the Postgres channel new notifications are announced on (see notificationChannel) */
  channel: string;
}
