import type { fileMeta, InternalResult, matchAdminUser } from '@market/contracts';
import type { FieldError } from '@market/shared/errors';

export type FileMeta = InternalResult<typeof fileMeta>;
export type MatchedAdmin = InternalResult<typeof matchAdminUser>;

/** What the files service knows of a stored object; null when there is no such key. */
export interface FileRegistry {
  meta(key: string): Promise<FileMeta | null>;
}

/** The admin service's open-upload match (spec rule 4); null when no active admin matches. */
export interface AdminDirectory {
  matchUploader(name: string): Promise<MatchedAdmin | null>;
}

/** The ordinary user that publishes open uploads on behalf of an admin, created or reused by identity. */
export interface PublisherAccounts {
  publisherFor(admin: { id: string; username: string }): Promise<string>;
}

/** What a client was answered for a refusal, as the HTTP edge answered it. */
export interface RefusalAnswer {
  status: number;
  code: string;
  reason: string;
  errors: FieldError[];
}

/** The HTTP edge's answer to an error, so the record of a refused delivery says what the uploader was told. */
export type AnswerOf = (err: unknown) => RefusalAnswer;
