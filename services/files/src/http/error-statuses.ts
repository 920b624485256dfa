import type { ErrorStatus } from '@market/shared/http';
import type { FilesErrorCode } from '../domain/errors';

/** What the API answers each of the files service's own refusals with (the kit's codes are known everywhere, ADR 0041). */
export const filesErrorStatuses = {
  UNSUPPORTED_MEDIA_TYPE: 415,
  STORAGE_UNAVAILABLE: 503,
} as const satisfies Record<FilesErrorCode, ErrorStatus>;
