import type { Queryable } from '@market/shared/db';

/**
 * Whether an order on the listing handed the account over (it has a handoff record) and ended after
 * `since`, the owner's last password change (any time when null): the listing then waits for the
 * owner to rotate the credentials (ADR 0066).
 */
export async function handedOverEndSince(db: Queryable, listingId: string, since: Date | null): Promise<boolean> {
  const rows: unknown[] = await db.query(
    `SELECT 1 FROM orders o
      WHERE o.listing_id = $1 AND o.status IN ('completed', 'closed', 'cancelled')
        AND ($2::timestamptz IS NULL OR o.status_changed_at > $2)
        AND EXISTS (SELECT 1 FROM handoff_records h WHERE h.order_id = o.id)
      LIMIT 1`,
    [listingId, since],
  );
  return rows.length > 0;
}
