import { fileUrl, type Dispute, type z } from '@market/contracts';
import type { DisputeRow } from '../persistence/dispute-repository';

export function toDisputeView(row: DisputeRow): z.infer<typeof Dispute> {
  return {
    id: row.id,
    order_id: row.order_id,
    type: row.type,
    raised_by: row.raised_by,
    reason: row.reason,
    evidence_urls: row.evidence_keys.map(fileUrl),
    status: row.status,
    result: row.result,
    resolution_note: row.resolution_note,
    created_at: row.created_at.toISOString(),
    resolved_at: row.resolved_at?.toISOString() ?? null,
  };
}
