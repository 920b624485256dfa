import { InvalidState, type DomainError } from '@market/shared/errors';
import type { Planned } from '@market/shared/planning';
import { OrderChanged, RenewalPending } from './errors';
import { effectsOf, type Ask, type Effects } from './move-effects';
import {
  isArbitration,
  type DisputeRef,
  type Move,
  type MoveActor,
  type MoveConfig,
  type MovePlan,
  type MoveType,
  type PlannedAudit,
  type PlannedEvent,
  type SeenOrder,
} from './moves';
import { orderSnapshot, type Order, type OrderChanges } from './order';
import { transitionOrRefusal, type Actor, type OrderState, type OrderTransition, type OrderTrigger } from './order-state';
import { settlementFigures } from './settlement';
import { deadlineOf, TIMED_STATES } from './timeouts';

/** The row of the state table a move asks for in the order's state. */
function triggerOf(order: Order, type: MoveType): OrderTrigger {
  switch (type) {
    case 'hand_over':
      return order.status === 'pending_handoff' ? 'handoff' : 'note';
    case 'timeout':
      return TIMED_STATES[order.status]?.stages === 'alert-then-resolve' && order.overdue_alerted_at === null ? 'overdue' : 'timeout';
    default:
      return type;
  }
}

/**
 * An admin decides on the order as the request read it before taking the lock: when the locked order
 * differs (another admin's decision, a party, the timeout scan committed a change in between), the
 * decision is refused, so of two admins deciding at once exactly one wins. The comparison is of
 * committed rows, never of clocks (ADR 0052).
 */
function staleDecision(order: Order, seen: SeenOrder): OrderChanged | null {
  if (order.status === seen.status && order.version === seen.version) return null;
  return new OrderChanged(`the order changed (it is ${order.status} now) while this decision waited; look at it again`);
}

/**
 * Why the move may not be made at all, before the state table is asked: a renewal being charged, an arbitration of a decided
 * dispute, or an admin's decision on an order that changed after the request read it (so the second
 * of two admins hears ORDER_CHANGED, whatever state the first one's decision left).
 */
function precondition(order: Order, move: Move): DomainError | null {
  // only the recording of the renewal being charged moves an order waiting for that charge (ADR 0065)
  if (order.renewal_charge_id !== null && !(move.type === 'renew' && move.renewalId === order.renewal_charge_id)) return new RenewalPending();
  if (isArbitration(move) && move.dispute.status !== 'open') return new InvalidState(`dispute is resolved (${move.dispute.result}); cannot arbitrate`);
  if (isArbitration(move) || move.type === 'admin_close' || move.type === 'admin_mark_abnormal') return staleDecision(order, move.seen);
  return null;
}

/**
 * The refusal of `actor`'s move of the order as it is, or null when the state table allows it (what
 * the move needs to know beyond it, planMove checks).
 */
export function moveRefusal(order: Order, type: MoveType, actor: Actor): DomainError | null {
  const row = transitionOrRefusal(order.status, triggerOf(order, type), actor);
  return row instanceof Error ? row : null;
}

/** The order's columns after the move: its state, the state's clock and deadline, and what the move records. */
function changesOf({ order, now, config, actor }: Ask, to: OrderState, recorded: Effects['changes']): OrderChanges {
  const entering = to !== order.status;
  const statusChangedAt = entering ? now : order.status_changed_at;
  const endsAt = recorded?.ends_at !== undefined ? recorded.ends_at : order.ends_at;
  // a new state starts with no overdue alert; the alert itself is what `overdue` records
  const overdueAlertedAt = recorded?.overdue_alerted_at ?? (entering ? null : order.overdue_alerted_at);
  const clock = { status: to, status_changed_at: statusChangedAt, ends_at: endsAt, overdue_alerted_at: overdueAlertedAt };
  return {
    ...recorded,
    // who held the order for manual handling may not also approve revealing its credentials (ADR 0056)
    ...(entering && to === 'abnormal' ? { marked_abnormal_by: actor.id } : {}),
    status: to,
    status_changed_at: statusChangedAt,
    overdue_alerted_at: overdueAlertedAt,
    deadline_at: deadlineOf(clock, config.settings, config.minuteMs),
    updated_at: now,
  };
}

/** The event of the table's row: the moved order's snapshot with the move's figures, or the dispute the move opened. */
function rowEvent({ order, actor }: Ask, event: NonNullable<OrderTransition['event']>, moved: Order, effects: Effects): PlannedEvent {
  if (event !== 'dispute.opened') return { type: event, data: { ...orderSnapshot(moved, effects.reason, actor.id), ...effects.eventData } } as PlannedEvent;
  const { id, type, raised_by, reason } = effects.openDispute!;
  return { type: event, data: { dispute_id: id, order_id: order.id, renter_id: order.renter_id, owner_id: order.owner_id, type, raised_by, reason } };
}

/** The end of the order's open dispute: its resolution, dispute.resolved naming both parties, and its audit entry. */
function disputeEnd({ order, actor, now }: Ask, dispute: DisputeRef, end: NonNullable<Effects['resolveDispute']>) {
  const { result, note, settlement } = end;
  return {
    resolution: { id: dispute.id, result, note, at: now },
    event: {
      type: 'dispute.resolved',
      data: {
        dispute_id: dispute.id,
        order_id: order.id,
        renter_id: order.renter_id,
        owner_id: order.owner_id,
        result,
        note,
        resolved_by: actor.id,
        breakdown: settlement ? settlementFigures(settlement) : null,
      },
    } satisfies PlannedEvent,
    audit: { action: 'dispute.resolve', biz_type: 'dispute', biz_id: dispute.id, detail: { order_id: order.id, result, note } } satisfies PlannedAudit,
  };
}

function assemble(ask: Ask, row: OrderTransition, effects: Effects): MovePlan {
  const { order } = ask;
  const { reason } = effects;
  const changes = changesOf(ask, row.to, effects.changes);
  const moveAudit: PlannedAudit = {
    action: `order.${row.trigger}`,
    biz_type: 'order',
    biz_id: order.id,
    detail: { from: order.status, to: row.to, ...(reason ? { reason } : {}) },
  };
  const events: PlannedEvent[] = row.event ? [rowEvent(ask, row.event, { ...order, ...changes }, effects)] : [];
  const audits = [effects.alert?.audit ?? moveAudit];
  if (effects.alert) events.push(effects.alert.event);
  const ending = effects.resolveDispute?.dispute ? disputeEnd(ask, effects.resolveDispute.dispute, effects.resolveDispute) : null;
  if (ending) {
    events.push(ending.event);
    audits.push(ending.audit);
  }
  return {
    trigger: row.trigger,
    from: order.status,
    to: row.to,
    openDispute: effects.openDispute ?? null,
    changes,
    handoffRecord: effects.handoffRecord ?? null,
    resolveDispute: ending?.resolution ?? null,
    events,
    audits,
  };
}

/**
 * Every move of an order, planned in one place: whether `actor` may make it from the order's state
 * (the state table), what else it needs (a checkout to settle, a valid split, an admin's decision on
 * the state seen), and what it does — the next state, its deadline, the columns it records, the
 * handoff record or dispute it writes, the events and audit entries — as data. Pure: the caller
 * carries the plan out in one transaction on the locked order.
 */
export function planMove(order: Order, move: Move, actor: MoveActor, now: Date, config: MoveConfig): Planned<MovePlan> {
  const early = precondition(order, move);
  if (early) return early;
  const trigger = triggerOf(order, move.type);
  const row = transitionOrRefusal(order.status, trigger, actor.role);
  if (row instanceof Error) return row;
  const ask: Ask = { order, move, actor, now, config, trigger };
  const effects = effectsOf(ask);
  if (effects instanceof Error) return effects;
  return assemble(ask, row, effects);
}

