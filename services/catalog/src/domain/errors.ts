import { Forbidden, InvalidState, NotFound, PermanentRefusal, TransientRefusal, Unauthenticated } from '@market/shared/errors';
import type { ListingState } from './listing-state';

/**
 * Catalog's own refusal codes, beyond the kit's (NOT_FOUND, INVALID_STATE, VALIDATION_FAILED, …):
 * each has a status in `http/error-statuses.ts`, whose table must name every one of them.
 */
export type CatalogErrorCode =
  | 'LISTING_UNAVAILABLE'
  | 'OWNER_FROZEN'
  | 'UPLOADER_NOT_MATCHED';

/** A listing that is not there, or not the caller's to see: the same refusal, so ids reveal nothing. */
export class ListingNotFound extends NotFound {
  constructor() {
    super('listing not found');
  }
}

/** A move the listing's state table has no row for from where the listing is (ADR 0008). */
export class ListingMoveRefused extends InvalidState {
  constructor(state: ListingState, move: string) {
    super(`listing is ${state.status} / ${state.review_status}; cannot ${move.replace('_', ' ')}`);
  }
}

/** A move that is never this actor's to make (an owner approving, the back office submitting). */
export class ListingMoveForbidden extends Forbidden {
  constructor(actor: string, move: string) {
    super(`${actor} may not ${move.replace('_', ' ')} a listing`);
  }
}

/** A listing rented out cannot change under its renter; it can once the rental has ended. */
export class ListingRented extends TransientRefusal<CatalogErrorCode> {
  constructor() {
    super('LISTING_UNAVAILABLE', 'listing is rented; try again when the rental has ended');
  }
}

/** A move that would put a frozen owner's listing in renters' reach; it can once they are unfrozen. */
export class OwnerFrozen extends TransientRefusal<CatalogErrorCode> {
  constructor() {
    super('OWNER_FROZEN', 'the listing’s owner is frozen; it cannot go online until they are unfrozen');
  }
}

export class OpenUploadNotFound extends NotFound {
  constructor() {
    super('open upload not found');
  }
}

/** An open upload whose `X-Upload-Token` is missing or is not the configured one. */
export class UploadTokenRefused extends Unauthenticated {
  constructor() {
    super('X-Upload-Token is missing or wrong');
  }
}

/** An open upload whose `uploaderName` names no active admin (spec rule 4). */
export class UploaderNotMatched extends PermanentRefusal<CatalogErrorCode> {
  constructor() {
    super('UPLOADER_NOT_MATCHED', 'uploaderName matches no active admin');
  }
}
