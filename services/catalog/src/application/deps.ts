import type { Db, EventWriter, ReadCache, SecretBox } from '@market/shared';
import type { AdminDirectory, FileRegistry, PublisherAccounts } from './ports';

/** What the use cases run against: the database, the outbox, the other services and the keyring. */
export interface CatalogDeps {
  db: Db;
  events: EventWriter;
  files: FileRegistry;
  admins: AdminDirectory;
  publishers: PublisherAccounts;
  secrets: SecretBox;
  /** answers of the public listing reads, dropped whenever a write commits here (ADR 0020) */
  publicReads: ReadCache;
  /** `OPEN_UPLOAD_TOKEN`, when configured */
  openUploadToken?: string;
  /** `OPEN_UPLOAD_BODY_LIMIT_BYTES` */
  openUploadBodyLimit: number;
}
