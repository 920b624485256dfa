import { DomainError } from '@market/shared/errors';
import { problemOfDomainError, type ErrorStatus } from '@market/shared/http';
import type { DeliveryErrorCode } from '../application/delivery-refusals';
import type { RefusalAnswer } from '../application/ports';
import type { CatalogErrorCode } from '../domain/errors';

/** What the API answers each of catalog's own refusals with (the kit's codes are known everywhere, ADR 0041). */
export const catalogErrorStatuses = {
  LISTING_UNAVAILABLE: 409,
  OWNER_FROZEN: 409,
  UPLOADER_NOT_MATCHED: 422,
  MALFORMED_JSON: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  MALFORMED_BODY: 400,
  REQUEST_ABORTED: 400,
} as const satisfies Record<CatalogErrorCode | DeliveryErrorCode, ErrorStatus>;

/**
 * How the edge answers `err`, for the record of a refused open upload: a domain error through the
 * table, anything else as our own failure (the record says what the uploader was told).
 */
export function answerOf(err: unknown): RefusalAnswer {
  const problem = err instanceof DomainError ? problemOfDomainError(err, catalogErrorStatuses) : null;
  if (!problem) return { status: 500, code: 'INTERNAL', reason: 'something went wrong on our side', errors: [] };
  return { status: problem.status, code: problem.code, reason: problem.message, errors: problem.errors ?? [] };
}
