import {
  ListingStatus,
  type adminListListings,
  type listListings,
  type listSellerListings,
  type PageQuery,
  type RouteQuery,
  type z,
} from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { ListingNotFound } from '../domain/errors';
import { isPublic, visibleToOwner } from '../domain/listing-state';
import { queryListings, type ListingQuery } from '../persistence/listing-queries';
import { countListings, findListing, findListingWithCredentialsFlag } from '../persistence/listing-repository';
import { toListingView } from './listing-view';
import { anyListing, ownListing } from './listing-access';
import type { CatalogDeps } from './deps';

async function page(deps: CatalogDeps, query: ListingQuery) {
  const { items, next_cursor } = await queryListings(deps.db, query);
  return { items: items.map(toListingView), next_cursor };
}

/**
 * Online listings to anyone; the owner also sees their own in any state but deleted. An online
 * listing reads the same for everyone, so that answer is shared through the cache.
 */
export async function publicListing(deps: CatalogDeps, identity: Identity, id: string) {
  if (!isUuid(id)) throw new ListingNotFound();
  const shared = await deps.publicReads.getIfShared(`listing:${id}`, async () => {
    const row = await findListing(deps.db, id);
    return row && isPublic(row) ? toListingView(row) : null;
  });
  if (shared) return shared;
  const row = await findListing(deps.db, id);
  const ownerId = callerUserId(identity);
  const visible = row && (isPublic(row) || (ownerId === row.owner_id && visibleToOwner(row)));
  if (!row || !visible) throw new ListingNotFound();
  return toListingView(row);
}

export async function sellerListing(deps: CatalogDeps, identity: Identity, id: string) {
  return toListingView(await ownListing(deps.db, id, identity));
}

/** Any listing in any state, deleted included: the back office and other services. */
export async function listingInAnyState(deps: CatalogDeps, id: string) {
  return toListingView(await anyListing(deps.db, id));
}

/** A listing in any state as orders takes it for a new order: with whether credentials are stored, which its payment hands over. */
export async function listingForOrder(deps: CatalogDeps, id: string) {
  const row = isUuid(id) ? await findListingWithCredentialsFlag(deps.db, id) : null;
  if (!row) throw new ListingNotFound();
  return { ...toListingView(row), credentials_stored: row.credentials_stored };
}

/** The public search answers the same to everyone for the same query, so it is shared through the cache. */
export async function searchListings(deps: CatalogDeps, query: RouteQuery<typeof listListings>) {
  return deps.publicReads.get(`search:${JSON.stringify(query)}`, () => page(deps, {
    status: 'online',
    game: query.game || undefined,
    text: query.q || undefined,
    minPrice: query.min_price,
    maxPrice: query.max_price,
    order: query.sort,
    limit: query.limit,
    cursor: query.cursor,
  }));
}

/** An owner's or the back office's page of listings: filtered by status, newest first. */
function newestByStatus(query: RouteQuery<typeof listSellerListings> | RouteQuery<typeof adminListListings>) {
  return {
    status: query.status,
    reviewStatus: query.review_status,
    awaitingRotation: query.awaiting_rotation,
    order: 'newest',
    limit: query.limit,
    cursor: query.cursor,
  } as const;
}

export async function sellerListings(deps: CatalogDeps, identity: Identity, query: RouteQuery<typeof listSellerListings>) {
  const ownerId = callerUserId(identity);
  if (!ownerId || query.status === 'deleted') return { items: [], next_cursor: null };
  return page(deps, { ownerId, excludeDeleted: true, ...newestByStatus(query) });
}

export async function adminListings(deps: CatalogDeps, query: RouteQuery<typeof adminListListings>) {
  if (query.owner_id !== undefined && !isUuid(query.owner_id)) return { items: [], next_cursor: null };
  return page(deps, { ownerId: query.owner_id, ...newestByStatus(query) });
}

/**
 * The review queue: draft listings awaiting a decision, oldest first (the one waiting longest is
 * decided first). A pending listing that was marked abnormal
 * or deleted meanwhile cannot be approved, so it is not in the queue.
 */
export async function pendingListings(deps: CatalogDeps, query: z.infer<typeof PageQuery>) {
  return page(deps, { status: 'draft', reviewStatus: 'pending', order: 'oldest', limit: query.limit, cursor: query.cursor });
}

/** For the admin dashboard: every status with its count, and the length of the review queue. */
export async function listingStats(deps: CatalogDeps) {
  const { byStatus, pendingReview } = await countListings(deps.db);
  const listings_by_status = Object.fromEntries(ListingStatus.options.map((s) => [s, byStatus[s] ?? 0]));
  return { listings_by_status, listings_pending_review: pendingReview };
}
