import type { Db, EventWriter, SecretBox } from '@market/shared';
import type { AdminDirectory } from '../clients/admin-directory';
import type { FileRegistry } from '../clients/file-registry';
import type { PublisherAccounts } from '../clients/publisher-accounts';

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
