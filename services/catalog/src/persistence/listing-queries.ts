import { isUuid, MAX_MONEY_FEN, problems, type CursorPosition, type EntityManager, type ListingStatus, type ReviewStatus, type z } from '@market/shared';
import { LISTING_COLUMNS, type ListingRow } from './listing-repository';

export type ListingOrder = 'newest' | 'price_asc' | 'price_desc';

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
  order: ListingOrder;
  after: CursorPosition | null;
  limit: number;
}

const ORDERS: Record<ListingOrder, { by: string; dir: 'ASC' | 'DESC'; column: 'created_at' | 'hourly_price' }> = {
  newest: { by: 'created_at DESC, id DESC', dir: 'DESC', column: 'created_at' },
  price_asc: { by: 'hourly_price ASC, id ASC', dir: 'ASC', column: 'hourly_price' },
  price_desc: { by: 'hourly_price DESC, id DESC', dir: 'DESC', column: 'hourly_price' },
};

/** The keyset position of a row in `order`; what the next page starts after. */
export function positionIn(order: ListingOrder) {
  return (row: ListingRow): CursorPosition =>
    ORDERS[order].column === 'created_at' ? { v: row.created_at.toISOString(), id: row.id } : { v: Number(row.hourly_price), id: row.id };
}

const LAST_TIMESTAMP = Date.UTC(10000, 0, 1);

function invalidCursor() {
  return problems.validation([{ path: 'query.cursor', message: 'cursor is not valid for this list' }]);
}

/** A cursor from another sort (or forged) is a 400, never a SQL error. */
function afterValue(order: ListingOrder, after: CursorPosition): string | number {
  if (!isUuid(after.id)) throw invalidCursor();
  if (ORDERS[order].column === 'created_at') {
    const at = typeof after.v === 'string' ? Date.parse(after.v) : Number.NaN;
    // Postgres refuses some years JavaScript accepts; no listing predates 1970 or outlives 9999.
    if (!(at >= 0 && at < LAST_TIMESTAMP)) throw invalidCursor();
    return new Date(at).toISOString();
  }
  if (typeof after.v !== 'number' || !Number.isInteger(after.v) || after.v < 0 || after.v > MAX_MONEY_FEN) throw invalidCursor();
  return after.v;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One page (plus one row, to know whether another follows) of listings matching `q`. */
export async function queryListings(manager: EntityManager, q: ListingQuery): Promise<ListingRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (q.status) where.push(`status = ${param(q.status)}`);
  if (q.excludeDeleted) where.push(`status <> 'deleted'`);
  if (q.reviewStatus) where.push(`review_status = ${param(q.reviewStatus)}`);
  if (q.ownerId) where.push(`owner_id = ${param(q.ownerId)}`);
  if (q.game) where.push(`game = ${param(q.game)}`);
  if (q.text) {
    const pattern = param(`%${escapeLike(q.text)}%`);
    where.push(`(title ILIKE ${pattern} ESCAPE '\\' OR description ILIKE ${pattern} ESCAPE '\\')`);
  }
  if (q.minPrice !== undefined) where.push(`hourly_price >= ${param(q.minPrice)}`);
  if (q.maxPrice !== undefined) where.push(`hourly_price <= ${param(q.maxPrice)}`);
  const order = ORDERS[q.order];
  if (q.after) {
    const value = afterValue(q.order, q.after);
    const cast = order.column === 'created_at' ? '::timestamptz' : '::integer';
    where.push(`(${order.column}, id) ${order.dir === 'DESC' ? '<' : '>'} (${param(value)}${cast}, ${param(q.after.id)}::uuid)`);
  }
  const sql = `SELECT ${LISTING_COLUMNS} FROM listings
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY ${order.by} LIMIT ${param(q.limit + 1)}`;
  return manager.query(sql, params);
}
