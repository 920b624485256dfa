import { ratingSummary, type Listing, type z } from '@market/contracts';
import type { ListingRow } from '../persistence/listing-repository';

export type ListingView = z.infer<typeof Listing>;

/** A listing as the contract shows it: money as integer fen, times as ISO strings. */
export function toListingView(row: ListingRow): ListingView {
  return {
    id: row.id,
    owner_id: row.owner_id,
    title: row.title,
    game: row.game,
    server: row.server,
    description: row.description,
    hourly_price: Number(row.hourly_price),
    min_hours: Number(row.min_hours),
    max_hours: row.max_hours === null ? null : Number(row.max_hours),
    deposit: Number(row.deposit),
    screenshot_urls: row.screenshot_urls,
    status: row.status,
    review_status: row.review_status,
    reject_reason: row.reject_reason,
    rented: row.rented,
    allow_renewal: row.allow_renewal,
    rating: ratingSummary(row.rating_sum, row.rating_count),
    owner_rating: ratingSummary(row.owner_rating_sum, row.owner_rating_count),
    require_rotation: row.require_rotation,
    awaiting_rotation: row.awaiting_rotation,
    rotation_confirmed_at: row.rotation_confirmed_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
