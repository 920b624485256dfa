import { type Listing, type z } from '@market/contracts';
import { updateReturning, type Queryable, type Tx } from '@market/shared/db';
import type { ListingContent } from '../domain/listing-content';
import type { ListingState } from '../domain/listing-state';

export interface ListingRow extends Omit<z.infer<typeof Listing>, 'created_at' | 'updated_at' | 'rating' | 'owner_rating' | 'rotation_confirmed_at'> {
  rotation_confirmed_at: Date | null;
  /** the published renters' ratings of the listing (ADR 0066) */
  rating_count: number;
  rating_sum: number;
  /** the same for its owner, over all their listings */
  owner_rating_count: number;
  owner_rating_sum: number;
  /** why it is offline or abnormal, for the back office */
  status_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns of a listing row; credentials are in another table and never among them. The owner's
 * rating totals come from their own row (`listings.` named, so the list works after RETURNING too).
 */
export const LISTING_COLUMNS = `id, owner_id, title, game, server, description, hourly_price, min_hours, max_hours, deposit,
  screenshot_urls, status, review_status, reject_reason, status_reason, rented, allow_renewal, created_at, updated_at, rating_count, rating_sum,
  require_rotation, awaiting_rotation, rotation_confirmed_at,
  COALESCE((SELECT t.rating_count FROM owner_rating_totals t WHERE t.owner_id = listings.owner_id), 0) AS owner_rating_count,
  COALESCE((SELECT t.rating_sum FROM owner_rating_totals t WHERE t.owner_id = listings.owner_id), 0) AS owner_rating_sum`;

export interface NewListing extends ListingContent, ListingState {
  id: string;
  owner_id: string;
  open_upload_id: string | null;
  created_at: Date;
  /** the owner's choice, or on when credentials are stored with it (ADR 0066) */
  require_rotation: boolean;
}

export async function insertListing(tx: Tx, listing: NewListing): Promise<ListingRow> {
  const rows: ListingRow[] = await tx.query(
    `INSERT INTO listings (id, owner_id, title, game, server, description, hourly_price, min_hours, max_hours, deposit,
       screenshot_urls, status, review_status, open_upload_id, created_at, updated_at, allow_renewal, require_rotation)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16, $17)
     RETURNING ${LISTING_COLUMNS}`,
    [
      listing.id,
      listing.owner_id,
      listing.title,
      listing.game,
      listing.server,
      listing.description,
      listing.hourly_price,
      listing.min_hours,
      listing.max_hours,
      listing.deposit,
      listing.screenshot_urls,
      listing.status,
      listing.review_status,
      listing.open_upload_id,
      listing.created_at,
      listing.allow_renewal,
      listing.require_rotation,
    ],
  );
  return rows[0]!;
}

/** `lock`: hold the row until the transaction ends, so the state read here is the state that gets changed. */
export async function findListing(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<ListingRow | null> {
  const rows: ListingRow[] = await db.query(
    `SELECT ${LISTING_COLUMNS} FROM listings WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}

/** A listing, and whether account credentials are stored with it (never the credentials): what orders prices an order from. */
export async function findListingWithCredentialsFlag(db: Queryable, id: string): Promise<(ListingRow & { credentials_stored: boolean }) | null> {
  const rows: Array<ListingRow & { credentials_stored: boolean }> = await db.query(
    `SELECT ${LISTING_COLUMNS}, EXISTS (SELECT 1 FROM listing_credentials c WHERE c.listing_id = listings.id) AS credentials_stored
       FROM listings WHERE id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

export interface ListingUpdate extends Partial<ListingContent>, Partial<ListingState> {
  reject_reason?: string | null;
  status_reason?: string | null;
  updated_at: Date;
}

const UPDATABLE = new Set([
  'title', 'game', 'server', 'description', 'hourly_price', 'min_hours', 'max_hours', 'deposit', 'screenshot_urls', 'allow_renewal',
  'status', 'review_status', 'reject_reason', 'status_reason', 'updated_at',
]);

export async function updateListing(tx: Tx, id: string, update: ListingUpdate): Promise<ListingRow> {
  const entries = Object.entries(update).filter(([key, value]) => value !== undefined && UPDATABLE.has(key));
  const assignments = entries.map(([key], i) => `${key} = $${i + 2}`).join(', ');
  const rows = await updateReturning<ListingRow>(
    tx,
    `UPDATE listings SET ${assignments} WHERE id = $1 RETURNING ${LISTING_COLUMNS}`,
    [id, ...entries.map(([, value]) => value)],
  );
  return rows[0]!;
}

export async function countListings(db: Queryable): Promise<{ byStatus: Record<string, number>; pendingReview: number }> {
  const rows: Array<{ status: string; total: string; pending: string }> = await db.query(
    `SELECT status, count(*) AS total, count(*) FILTER (WHERE review_status = 'pending') AS pending
     FROM listings GROUP BY status`,
  );
  const byStatus: Record<string, number> = {};
  let pendingReview = 0;
  for (const row of rows) {
    byStatus[row.status] = Number(row.total);
    if (row.status === 'draft') pendingReview = Number(row.pending);
  }
  return { byStatus, pendingReview };
}

/**
 * The owner's rotation settings: whether rotation is required, and that the password was changed
 * now (a confirmation, or new credentials). `awaiting_rotation` is then derived again by the caller.
 */
export async function updateRotation(tx: Tx, id: string, change: { require_rotation?: boolean; rotated_at?: Date }) {
  await tx.query(
    `UPDATE listings SET require_rotation = COALESCE($2, require_rotation), rotation_confirmed_at = COALESCE($3, rotation_confirmed_at) WHERE id = $1`,
    [id, change.require_rotation ?? null, change.rotated_at ?? null],
  );
}
