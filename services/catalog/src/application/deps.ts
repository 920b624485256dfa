import type { EventWriter, ReadCache, SecretBox, ServiceContext } from '@market/shared';
import type { AdminDirectory } from '../clients/admin-directory';
import type { FileRegistry } from '../clients/file-registry';
import type { PublisherAccounts } from '../clients/publisher-accounts';

/** What the use cases run against: the database, the outbox, the other services and the keyring. */
export interface CatalogDeps {
  db: ServiceContext['db'];
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
