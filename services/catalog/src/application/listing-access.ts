import { callerUserId, type Identity } from '@market/shared/auth';
import { isUuid, type Queryable } from '@market/shared/db';
import { ListingNotFound, ListingRented } from '../domain/errors';
import { visibleToOwner } from '../domain/listing-state';
import { findListing, type ListingRow } from '../persistence/listing-repository';

/**
 * The caller's own listing, locked when it is about to change. Someone else's listing, a deleted
 * one and a malformed id all look the same: 404, so ids reveal nothing.
 */
export async function ownListing(db: Queryable, id: string, identity: Identity, opts: { lock?: boolean } = {}): Promise<ListingRow> {
  const ownerId = callerUserId(identity);
  if (!ownerId || !isUuid(id)) throw new ListingNotFound();
  const row = await findListing(db, id, opts);
  if (!row || row.owner_id !== ownerId || !visibleToOwner(row)) throw new ListingNotFound();
  return row;
}

/** Any listing, for the back office and other services. */
export async function anyListing(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<ListingRow> {
  if (!isUuid(id)) throw new ListingNotFound();
  const row = await findListing(db, id, opts);
  if (!row) throw new ListingNotFound();
  return row;
}

/** A listing rented out cannot change under its renter (docs/rules.md §4). */
export function assertNotRented(row: ListingRow) {
  if (row.rented) throw new ListingRented();
}
