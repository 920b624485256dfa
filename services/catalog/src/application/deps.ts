import type { SecretBox } from '@market/shared/crypto';
import type { Db } from '@market/shared/db';
import type { EventWriter } from '@market/shared/events';
import type { ReadCache } from '@market/shared/http';
import type { AdminDirectory, AnswerOf, FileRegistry, PublisherAccounts } from './ports';

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
  /** how the HTTP edge answers an error, kept in the record of a refused open upload */
  answerOf: AnswerOf;
}
