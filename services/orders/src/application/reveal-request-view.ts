import type { RevealRequest, z } from '@market/contracts';
import type { RevealRequestRow } from '../persistence/reveal-request-repository';

export function toRevealRequestView(row: RevealRequestRow): z.infer<typeof RevealRequest> {
  return {
    id: row.id,
    order_id: row.order_id,
    requested_by: row.requested_by,
    reason: row.reason,
    status: row.status,
    approved_by: row.approved_by,
    approved_at: row.approved_at?.toISOString() ?? null,
    used_at: row.used_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
