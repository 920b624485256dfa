import { updateReturning, type Queryable, type Tx } from '@market/shared/db';

export type RenewalStatus = 'charging' | 'renewed' | 'not_charged';

export interface RenewalRow {
  id: string;
  order_id: string;
  hours: number;
  rent: number;
  status: RenewalStatus;
  requested_at: Date;
  charge_deadline_at: Date;
  previous_ends_at: Date | null;
  ends_at: Date | null;
  renewed_at: Date | null;
}

const COLUMNS = `id, order_id, hours, rent::float8 AS rent, status, requested_at, charge_deadline_at, previous_ends_at, ends_at, renewed_at`;

export async function insertRenewal(
  tx: Tx,
  row: { id: string; order_id: string; hours: number; rent: number; requested_at: Date; charge_deadline_at: Date },
): Promise<RenewalRow> {
  const rows: RenewalRow[] = await tx.query(
    `INSERT INTO order_renewals (id, order_id, hours, rent, status, requested_at, charge_deadline_at)
     VALUES ($1, $2, $3, $4, 'charging', $5, $6) RETURNING ${COLUMNS}`,
    [row.id, row.order_id, row.hours, row.rent, row.requested_at, row.charge_deadline_at],
  );
  return rows[0]!;
}

export async function findRenewal(db: Queryable, id: string): Promise<RenewalRow | null> {
  const rows: RenewalRow[] = await db.query(`SELECT ${COLUMNS} FROM order_renewals WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** The renewals of an order that moved its end, oldest first. */
export async function renewalsOf(db: Queryable, orderId: string): Promise<RenewalRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM order_renewals WHERE order_id = $1 AND status = 'renewed' ORDER BY renewed_at`, [orderId]);
}

/** The charging renewal is over: recorded with the end it moved, or known never to have been charged. */
export async function endRenewal(
  tx: Tx,
  id: string,
  end: { status: 'renewed'; previous_ends_at: Date; ends_at: Date; renewed_at: Date } | { status: 'not_charged' },
): Promise<void> {
  await updateReturning(
    tx,
    `UPDATE order_renewals SET status = $2, previous_ends_at = $3, ends_at = $4, renewed_at = $5 WHERE id = $1 AND status = 'charging' RETURNING id`,
    [id, end.status, end.status === 'renewed' ? end.previous_ends_at : null, end.status === 'renewed' ? end.ends_at : null, end.status === 'renewed' ? end.renewed_at : null],
  );
}

/**
 * Leases the next renewal whose charge deadline has passed with its outcome unknown. The lease
 * (checked_at) is committed with the claim, so replicas take different renewals and no lock is held
 * while the wallet is asked; a renewal whose check failed comes back once the lease has run out.
 */
export async function leaseUnknownRenewal(tx: Tx, now: Date, leaseMs: number): Promise<RenewalRow | null> {
  const rows = await updateReturning<RenewalRow>(
    tx,
    `WITH next AS (
       SELECT id FROM order_renewals
        WHERE status = 'charging' AND charge_deadline_at < $1
          AND (checked_at IS NULL OR checked_at < $1 - make_interval(secs => $2::float8 / 1000))
        ORDER BY charge_deadline_at LIMIT 1 FOR UPDATE SKIP LOCKED)
     UPDATE order_renewals r SET checked_at = $1 FROM next WHERE r.id = next.id
     RETURNING r.id, r.order_id, r.hours, r.rent::float8 AS rent, r.status, r.requested_at, r.charge_deadline_at, r.previous_ends_at, r.ends_at, r.renewed_at`,
    [now, leaseMs],
  );
  return rows[0] ?? null;
}
