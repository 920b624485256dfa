import { ratingSummary, type Order, type z } from '@market/contracts';
import type { Queryable } from '@market/shared/db';
import { renterRecords } from '../persistence/rating-repository';

type OrderView = z.infer<typeof Order>;

/**
 * Adds the renter's record (published ratings from owners, completed orders) to the orders the
 * caller owns, so an owner can judge who rents; a renter's own view of an order never carries it.
 */
export async function withRenterRecords(db: Queryable, ownerId: string, views: OrderView[]): Promise<OrderView[]> {
  const renters = [...new Set(views.filter((v) => v.owner_id === ownerId).map((v) => v.renter_id))];
  const records = new Map((await renterRecords(db, renters)).map((r) => [r.renter_id, r]));
  return views.map((view) => {
    const record = view.owner_id === ownerId ? records.get(view.renter_id) : undefined;
    if (!record) return view;
    return {
      ...view,
      renter_record: {
        rating: ratingSummary(record.rating_sum, record.rating_count),
        completed_orders: record.completed_orders,
      },
    };
  });
}
