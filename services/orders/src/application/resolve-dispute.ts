import { type AdminIdentity } from '@market/shared/auth';
import { type Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import type { ArbitrationResult } from '../domain/arbitration';
import type { Settlement } from '../domain/settlement';
import { resolveDispute, type DisputeRow } from '../persistence/dispute-repository';
import type { OrderRow } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { settlementFigures } from './order-moves';

/**
 * Resolves a locked open dispute in the caller's transaction (the order's move is the caller's):
 * result, note and time, dispute.resolved naming both parties, and an audit entry of the admin.
 */
export async function resolveOpenDispute(
  deps: Pick<OrdersDeps, 'events'>,
  tx: Tx,
  dispute: DisputeRow,
  order: OrderRow,
  /** identity null: the system's default resolution of an overdue dispute (ADR 0029) */
  decision: { result: ArbitrationResult; note: string; identity: AdminIdentity | null; settlement: Settlement | null },
): Promise<DisputeRow> {
  const resolved = await resolveDispute(tx, dispute.id, { result: decision.result, note: decision.note, at: new Date() });
  await deps.events.publish(tx, 'dispute.resolved', {
    dispute_id: dispute.id,
    order_id: order.id,
    renter_id: order.renter_id,
    owner_id: order.owner_id,
    result: decision.result,
    note: decision.note,
    resolved_by: decision.identity?.sub ?? null,
    breakdown: decision.settlement ? settlementFigures(decision.settlement) : null,
  });
  await recordAudit(deps.events, tx, decision.identity, {
    action: 'dispute.resolve',
    biz_type: 'dispute',
    biz_id: dispute.id,
    detail: { order_id: order.id, result: decision.result, note: decision.note },
  });
  return resolved;
}
