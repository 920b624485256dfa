import { type ListingStatus, type ReviewStatus, type z } from '@market/contracts';
import { keysetPage, NEWEST_FIRST, type KeysetOrder, type KeysetPageRequest, type KeysetPageResult, type Queryable, sqlParams } from '@market/shared/db';
import { LISTING_COLUMNS, type ListingRow } from './listing-repository';

export type ListingOrder = 'newest' | 'oldest' | 'price_asc' | 'price_desc';

export interface ListingQuery {
  status?: z.infer<typeof ListingStatus>;
  reviewStatus?: z.infer<typeof ReviewStatus>;
  excludeDeleted?: boolean;
  ownerId?: string;
  game?: string;
  /** matched against title and description, as a literal substring */
  text?: string;
  minPrice?: number;
  maxPrice?: number;
  /** only listings waiting for (true) or not waiting for (false) their owner's password change */
  awaitingRotation?: boolean;
  order: ListingOrder;
  cursor: string | undefined;
  limit: number;
}

const byPrice = (direction: KeysetOrder['direction']): KeysetOrder => ({
  keys: [
    { column: 'hourly_price', type: 'integer' },
    { column: 'id', type: 'uuid' },
  ],
  direction,
});

const ORDERS: Record<ListingOrder, KeysetOrder> = {
  newest: NEWEST_FIRST,
  // a queue is served in arrival order (the same index, read backwards)
  oldest: { ...NEWEST_FIRST, direction: 'asc' },
  price_asc: byPrice('asc'),
  price_desc: byPrice('desc'),
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Rows in order searched for a first page before the text filter runs over every listing (ADR 0020). */
const TEXT_SEARCH_WINDOW = 1000;

/**
 * A literal substring of title or description, any case. Of online listings, three or more
 * characters are found through the trigram indexes (the ILIKE itself), one or two through the
 * grams index (migration 0005), which the condition on `listing_text_grams` names.
 */
function textSearch(text: string, online: boolean): NonNullable<KeysetPageRequest['sparse']> {
  const pattern = `%${escapeLike(text)}%`;
  return {
    filter: (param) => {
      const p = param(pattern);
      return `(title ILIKE ${p} ESCAPE '\\' OR description ILIKE ${p} ESCAPE '\\')`;
    },
    indexed: online && [...text].length <= 2 ? (param) => `listing_text_grams(title, description) @> ARRAY[lower(${param(text)}::text)]` : undefined,
    window: TEXT_SEARCH_WINDOW,
  };
}

/** One page of listings matching `q`, after its cursor. */
export async function queryListings(db: Queryable, q: ListingQuery): Promise<KeysetPageResult<ListingRow>> {
  const where: string[] = [];
  const { params, param } = sqlParams();
  if (q.status) where.push(`status = ${param(q.status)}`);
  if (q.excludeDeleted) where.push(`status <> 'deleted'`);
  if (q.reviewStatus) where.push(`review_status = ${param(q.reviewStatus)}`);
  if (q.ownerId) where.push(`owner_id = ${param(q.ownerId)}`);
  if (q.game) where.push(`game = ${param(q.game)}`);
  if (q.minPrice !== undefined) where.push(`hourly_price >= ${param(q.minPrice)}`);
  if (q.maxPrice !== undefined) where.push(`hourly_price <= ${param(q.maxPrice)}`);
  if (q.awaitingRotation !== undefined) where.push(`awaiting_rotation = ${param(q.awaitingRotation)}`);
  const text = q.text ? textSearch(q.text, q.status === 'online') : undefined;
  return keysetPage<ListingRow>(db, {
    query: `SELECT ${LISTING_COLUMNS} FROM listings ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
    params,
    orderBy: ORDERS[q.order],
    limit: q.limit,
    cursor: q.cursor,
    sparse: text,
  });
}
