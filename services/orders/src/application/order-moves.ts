import { type EventData } from '@market/contracts';
import { type Identity } from '@market/shared/auth';
import { type Tx } from '@market/shared/db';
import { recordAudit } from '@market/shared/events';
import { Forbidden, InvalidState } from '@market/shared/errors';
import { decideMove, type Actor, type OrderTransition, type OrderTrigger } from '../domain/order-state';
import type { OrderSettings } from '../domain/settings';
import type { Settlement } from '../domain/settlement';
import { deadlineOf } from '../domain/timeouts';
import { updateOrder, type OrderRow, type OrderUpdate } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { orderSnapshot } from './order-view';

const READABLE: Record<OrderTrigger, string> = {
  pay: 'pay',
  cancel: 'cancel',
  handoff: 'hand over',
  note: 'add a handoff note',
  confirm_receive: 'confirm receipt',
  checkout: 'check out',
  confirm_checkout: 'confirm the checkout',
  counter_checkout: 'counter the checkout',
  accept_checkout: 'accept the correction',
  reject_checkout: 'reject the correction',
  dispute: 'raise a dispute',
  timeout: 'time out',
  arbitrate_complete: 'complete by arbitration',
  arbitrate_close: 'close by arbitration',
  arbitrate_mark_abnormal: 'mark abnormal by arbitration',
  admin_close: 'close',
  admin_mark_abnormal: 'mark abnormal',
};

/** Refuses what the state table does not allow: 403 for another party's move, 409 for a wrong state. */
export function assertMove(order: OrderRow, trigger: OrderTrigger, actor: Actor): OrderTransition {
  const decision = decideMove(order.status, trigger, actor);
  if (decision.ok) return decision.transition;
  if (decision.refusal === 'forbidden') throw new Forbidden(`the ${actor} cannot ${READABLE[trigger]}`);
  throw new InvalidState(`order is ${order.status}; cannot ${READABLE[trigger]}`);
}

export interface MoveInput {
  trigger: OrderTrigger;
  actor: Actor;
  /** who asked: a party, an admin, or null for the timeout scan (audited as the system) */
  identity: Identity | null;
  settings: OrderSettings;
  reason?: string | null;
  /** further column changes made by the same move (paid_at, checkout, dispute_id …) */
  changes?: Omit<OrderUpdate, 'status' | 'status_changed_at' | 'deadline_at' | 'updated_at'>;
  /** the fields the event adds to the order snapshot (settlement figures, paid_at …) */
  eventData?: object;
}

/**
 * Moves a locked order along the state table in the caller's transaction: new state, its deadline
 * from the thresholds in force, the event, and the audit entry. A concurrent move waited for the
 * lock and finds the new state, so it is refused.
 */
export async function moveOrder(
  deps: Pick<OrdersDeps, 'events' | 'minuteMs'>,
  tx: Tx,
  order: OrderRow,
  input: MoveInput,
): Promise<OrderRow> {
  const transition = assertMove(order, input.trigger, input.actor);
  const now = new Date();
  const entering = transition.to !== order.status;
  const statusChangedAt = entering ? now : order.status_changed_at;
  const endsAt = input.changes?.ends_at !== undefined ? input.changes.ends_at : order.ends_at;
  const overdueAlertedAt = entering ? null : order.overdue_alerted_at;
  const moved = await updateOrder(tx, order.id, {
    ...input.changes,
    status: transition.to,
    status_changed_at: statusChangedAt,
    overdue_alerted_at: overdueAlertedAt,
    deadline_at: deadlineOf(
      { status: transition.to, status_changed_at: statusChangedAt, ends_at: endsAt, overdue_alerted_at: overdueAlertedAt },
      input.settings,
      deps.minuteMs,
    ),
    updated_at: now,
  });
  const actorId = input.identity && input.identity.kind !== 'anonymous' && input.identity.kind !== 'service' ? input.identity.sub : null;
  const reason = input.reason ?? null;
  // dispute.opened describes the dispute, not the order: the use case that opens one publishes it.
  if (transition.event && transition.event !== 'dispute.opened') {
    await deps.events.publish(tx, transition.event, {
      ...orderSnapshot(moved, reason, actorId),
      ...input.eventData,
    } as EventData<'order.completed'>);
  }
  await recordAudit(deps.events, tx, input.identity, {
    action: `order.${input.trigger}`,
    biz_type: 'order',
    biz_id: order.id,
    detail: { from: order.status, to: moved.status, ...(reason ? { reason } : {}) },
  });
  return moved;
}

/** The settlement figures as events carry them. */
export function settlementFigures(s: Settlement): Settlement {
  return {
    consumption: s.consumption,
    deposit_deduction: s.deposit_deduction,
    refund: s.refund,
    owner_income: s.owner_income,
    platform_fee: s.platform_fee,
  };
}
