import { updateReturning, type Tx } from '@market/shared/db';

export interface EndingOrder {
  id: string;
  listing_id: string;
  listing_title: string;
  renter_id: string;
  owner_id: string;
  ends_at: Date;
}

/**
 * Claims the next order in use ending before `until` (and not yet ended) whose renter has not been
 * reminded of this end time, marking it reminded in the same statement: rows another replica holds
 * are skipped, and the mark commits with the reminder's event, so each end time is reminded once.
 */
export async function claimEndingOrder(tx: Tx, now: Date, until: Date): Promise<EndingOrder | null> {
  const rows = await updateReturning<EndingOrder>(
    tx,
    `WITH next AS (
       SELECT id FROM orders
        WHERE status = 'in_use' AND ends_at > $1 AND ends_at <= $2 AND end_reminded_for IS DISTINCT FROM ends_at
        ORDER BY ends_at LIMIT 1 FOR UPDATE SKIP LOCKED)
     UPDATE orders o SET end_reminded_for = o.ends_at FROM next WHERE o.id = next.id
     RETURNING o.id, o.listing_id, o.listing_title, o.renter_id, o.owner_id, o.ends_at`,
    [now, until],
  );
  return rows[0] ?? null;
}
