import type { EntityManager } from '@market/shared';

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

export async function insertDispute(manager: EntityManager, dispute: NewDispute): Promise<DisputeRow> {
  const rows: DisputeRow[] = await manager.query(
    `INSERT INTO disputes (id, order_id, type, raised_by, reason, evidence_keys, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [dispute.id, dispute.order_id, dispute.type, dispute.raised_by, dispute.reason, dispute.evidence_keys, dispute.created_at],
  );
  return rows[0]!;
}
