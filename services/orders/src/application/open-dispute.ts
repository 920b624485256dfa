import { callerUserId } from '@market/shared/auth';
import type { openDispute as openDisputeRoute, RouteBody } from '@market/contracts';
import type { Identity } from '@market/shared/auth';
import type { Tx } from '@market/shared/db';
import { v7 as uuidv7 } from 'uuid';
import { DISPUTE_TYPE_OF, type Actor } from '../domain/order-state';
import { insertDispute, type DisputeRow } from '../persistence/dispute-repository';
import type { OrderRow } from '../persistence/order-repository';
import { assertOwnFiles, shareWithParties } from './caller-files';
import type { OrdersDeps } from './deps';
import { toDisputeView } from './dispute-view';
import { partyOrder } from './order-access';
import { assertMove, moveOrder } from './order-moves';
import { currentSettings } from './settings';

export interface DisputeInput {
  trigger: 'dispute' | 'reject_checkout';
  role: Actor;
  userId: string;
  identity: Identity;
  reason: string;
  evidenceKeys: string[];
}

/**
 * Opens a dispute on a locked order in the caller's transaction: the dispute row (the partial unique
 * index keeps one open per order), the order's move to disputed, and dispute.opened naming both
 * parties so notify can address them from the event alone.
 */
export async function disputeOrder(deps: OrdersDeps, tx: Tx, order: OrderRow, input: DisputeInput): Promise<{ order: OrderRow; dispute: DisputeRow }> {
  assertMove(order, input.trigger, input.role);
  const type = DISPUTE_TYPE_OF[order.status]!;
  const dispute = await insertDispute(tx, {
    id: uuidv7(),
    order_id: order.id,
    type,
    raised_by: input.userId,
    reason: input.reason,
    evidence_keys: input.evidenceKeys,
    created_at: new Date(),
  });
  await shareWithParties(deps, order, input.evidenceKeys);
  const moved = await moveOrder(deps, tx, order, {
    trigger: input.trigger,
    actor: input.role,
    identity: input.identity,
    settings: await currentSettings(tx),
    reason: input.reason,
    changes: { dispute_id: dispute.id },
  });
  await deps.events.publish(tx, 'dispute.opened', {
    dispute_id: dispute.id,
    order_id: order.id,
    renter_id: order.renter_id,
    owner_id: order.owner_id,
    type,
    raised_by: input.userId,
    reason: input.reason,
  });
  return { order: moved, dispute };
}

/** Either party raises a dispute; its type follows from the state the order is in. */
export async function openDispute(deps: OrdersDeps, identity: Identity, id: string, body: RouteBody<typeof openDisputeRoute>) {
  const keys = [...new Set(body.evidence_keys ?? [])];
  const caller = callerUserId(identity);
  if (caller) await assertOwnFiles(deps, caller, keys, 'evidence_keys');
  return deps.db.transaction(async (tx) => {
    const { order, role, userId } = await partyOrder(tx, id, identity, { lock: true });
    const { dispute } = await disputeOrder(deps, tx, order, { trigger: 'dispute', role, userId, identity, reason: body.reason, evidenceKeys: keys });
    return toDisputeView(dispute);
  });
}
