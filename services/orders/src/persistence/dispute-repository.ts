import {
  keysetPage,
  NEWEST_FIRST,
  updateReturning,
  type KeysetPageResult,
  type Queryable,
  type Tx, sqlParams,
} from '@market/shared/db';

export interface DisputeRow {
  id: string;
  order_id: string;
  type: 'handoff' | 'usage' | 'checkout';
  raised_by: string;
  reason: string;
  evidence_keys: string[];
  status: 'open' | 'resolved';
  result: 'complete' | 'close' | 'mark_abnormal' | null;
  resolution_note: string | null;
  created_at: Date;
  resolved_at: Date | null;
}

export type NewDispute = Pick<DisputeRow, 'id' | 'order_id' | 'type' | 'raised_by' | 'reason' | 'evidence_keys' | 'created_at'>;

export async function insertDispute(tx: Tx, dispute: NewDispute): Promise<DisputeRow> {
  const rows: DisputeRow[] = await tx.query(
    `INSERT INTO disputes (id, order_id, type, raised_by, reason, evidence_keys, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [dispute.id, dispute.order_id, dispute.type, dispute.raised_by, dispute.reason, dispute.evidence_keys, dispute.created_at],
  );
  return rows[0]!;
}

const COLUMNS = 'id, order_id, type, raised_by, reason, evidence_keys, status, result, resolution_note, created_at, resolved_at';

/** `lock`: hold the dispute until the transaction ends, so of two arbitrations the second sees the first's result. */
export async function findDispute(db: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<DisputeRow | null> {
  const rows: DisputeRow[] = await db.query(`SELECT ${COLUMNS} FROM disputes WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** The order's open dispute (at most one: the partial unique index), locked. */
export async function lockOpenDisputeOf(tx: Tx, orderId: string): Promise<DisputeRow | null> {
  const rows: DisputeRow[] = await tx.query(`SELECT ${COLUMNS} FROM disputes WHERE order_id = $1 AND status = 'open' FOR UPDATE`, [orderId]);
  return rows[0] ?? null;
}

export async function latestDisputeOf(db: Queryable, orderId: string): Promise<DisputeRow | null> {
  const rows: DisputeRow[] = await db.query(`SELECT ${COLUMNS} FROM disputes WHERE order_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, [orderId]);
  return rows[0] ?? null;
}

export async function resolveDispute(
  tx: Tx,
  id: string,
  resolution: { result: NonNullable<DisputeRow['result']>; note: string; at: Date },
): Promise<DisputeRow> {
  const rows = await updateReturning<DisputeRow>(
    tx,
    `UPDATE disputes SET status = 'resolved', result = $2, resolution_note = $3, resolved_at = $4 WHERE id = $1 AND status = 'open' RETURNING ${COLUMNS}`,
    [id, resolution.result, resolution.note, resolution.at],
  );
  return rows[0]!;
}

export interface DisputeQuery {
  /** disputes on orders this user rents or owns */
  partyId?: string;
  status?: DisputeRow['status'];
  type?: DisputeRow['type'];
  orderId?: string;
  cursor: string | undefined;
  limit: number;
}

/** One page of disputes, newest first; a party sees those on its orders, whoever raised them. */
export async function queryDisputes(db: Queryable, query: DisputeQuery): Promise<KeysetPageResult<DisputeRow>> {
  const { params, param } = sqlParams();
  const where: string[] = [];
  if (query.partyId) {
    const party = param(query.partyId);
    where.push(`d.order_id IN (SELECT id FROM orders WHERE renter_id = ${party} OR owner_id = ${party})`);
  }
  if (query.status) where.push(`d.status = ${param(query.status)}`);
  if (query.type) where.push(`d.type = ${param(query.type)}`);
  if (query.orderId) where.push(`d.order_id = ${param(query.orderId)}`);
  return keysetPage<DisputeRow>(db, {
    query: `SELECT ${COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')} FROM disputes d${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
    params,
    orderBy: NEWEST_FIRST,
    limit: query.limit,
    cursor: query.cursor,
  });
}
