import type { Db, EventWriter, SecretBox } from '@market/shared';
import type { AdminDirectory, FileRegistry, PublisherAccounts } from './ports';

/** What the use cases run against: the database, the outbox, the other services and the keyring. */
export interface CatalogDeps {
  db: Db;
  events: EventWriter;
  files: FileRegistry;
  admins: AdminDirectory;
  publishers: PublisherAccounts;
  secrets: SecretBox;
  /** `OPEN_UPLOAD_TOKEN`, when configured */
  openUploadToken?: string;
  /** `OPEN_UPLOAD_BODY_LIMIT_BYTES` */
  openUploadBodyLimit: number;
}
