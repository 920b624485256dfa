import { type FieldError, InvalidInput, NotFound, PermanentRefusal, TransientRefusal } from '@market/shared/errors';

/**
 * The files service's own refusal codes, beyond the kit's (NOT_FOUND, FORBIDDEN, VALIDATION_FAILED):
 * each has a status in `http/error-statuses.ts`, whose table must name every one of them.
 */
export type FilesErrorCode = 'UNSUPPORTED_MEDIA_TYPE' | 'STORAGE_UNAVAILABLE';

/**
 * A key that is malformed, unknown, or names a file the caller may not read: the same refusal,
 * so a stranger cannot even learn that a private file exists.
 */
export class FileNotFound extends NotFound {}

/** Bytes that are none of the accepted types (judged by their magic numbers, not the client's word). */
export class FileTypeNotAccepted extends PermanentRefusal<FilesErrorCode> {
  constructor() {
    super('UNSUPPORTED_MEDIA_TYPE', 'only JPG, PNG, WebP and PDF files are accepted');
  }
}

/** Keys to attach that name no stored file, each by its index. */
export class UnknownFiles extends InvalidInput {
  constructor(errors: FieldError[]) {
    super(errors, 'some files do not exist');
  }
}

/**
 * The object store did not answer (down, unreachable, timing out, failing): nothing was stored or
 * read, and the same request can succeed once it is back. Revalidations (`If-None-Match`) are
 * answered from the database and never meet it.
 */
export class StorageUnavailable extends TransientRefusal<FilesErrorCode> {
  constructor() {
    super('STORAGE_UNAVAILABLE', 'file storage is unavailable; try again shortly', { retryAfterSeconds: 5 });
  }
}
