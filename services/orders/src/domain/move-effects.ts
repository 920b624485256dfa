import { InvalidInput, InvalidState, type DomainError } from '@market/shared/errors';
import { arbitratedSettlement, type ArbitrationResult } from './arbitration';
import { ChargePending, OrderChanged } from './errors';
import { escrowOf, feeRateOf, type Order, type OrderChanges } from './order';
import { DISPUTE_TYPE_OF, type OrderState, type OrderTrigger } from './order-state';
import {
  automaticCheckoutAt,
  defaultConsumption,
  overtimeAt,
  overtimeIn,
  refundAll,
  settledCheckout,
  settlementFigures,
  timedOutConsumption,
  type Proposal,
  type Settlement,
  type StoredCheckout,
} from './settlement';
import { deadlineOf } from './timeouts';
import type {
  AdminEnd,
  Arbitration,
  DisputeRef,
  Move,
  MoveActor,
  MoveConfig,
  MoveOf,
  MoveType,
  PlannedAudit,
  PlannedDispute,
  PlannedEvent,
  PlannedHandoffRecord,
} from './moves';

/* What each move does once the state table allows it, besides taking its row; planMove assembles the plan from it. */

/** A move asked of the order as it is, with the row of the state table it takes. */
export interface Ask<M extends Move = Move> {
  order: Order;
  move: M;
  actor: MoveActor;
  now: Date;
  config: MoveConfig;
  trigger: OrderTrigger;
}

/** What a move does beyond taking its row. */
export interface Effects {
  /** the reason the event and the audit entry carry */
  reason: string | null;
  changes?: Omit<OrderChanges, 'updated_at'>;
  /** fields the order event adds to the order's snapshot */
  eventData?: object;
  handoffRecord?: PlannedHandoffRecord;
  openDispute?: PlannedDispute;
  /** the dispute the move ends (none when the order has no open one) */
  resolveDispute?: { dispute: DisputeRef | null; result: ArbitrationResult; note: string; settlement: Settlement | null };
  /** the overdue alert: its audit entry in place of the move's, and its event */
  alert?: { audit: PlannedAudit; event: PlannedEvent };
}

type Planner<T extends MoveType> = (ask: Ask<MoveOf<T>>) => Effects | DomainError;

const HOUR_MS = 3_600_000;

/** The renter has the account: the rental clock runs from now for the hours paid. */
function startRental({ order, now }: Ask, reason: string | null): Effects {
  const endsAt = new Date(now.getTime() + order.hours * HOUR_MS);
  return {
    reason,
    changes: { started_at: now, ends_at: endsAt },
    eventData: { started_at: now.toISOString(), ends_at: endsAt.toISOString() },
  };
}

/** The order's checkout is set to `checkout` and the event carries its figures. */
function withCheckout(checkout: StoredCheckout | DomainError, reason: string | null): Effects | DomainError {
  if (checkout instanceof Error) return checkout;
  return { reason, changes: { checkout }, eventData: settlementFigures(checkout) };
}

/** The order's escrow split by `proposal` at the order's rate, as the order stores it, or the refusal naming the field. */
function split({ order, config }: Ask, proposal: Proposal, reason: string | null, evidenceKeys: string[]): StoredCheckout | DomainError {
  return settledCheckout(escrowOf(order), proposal, feeRateOf(order, config.settings), reason, evidenceKeys);
}

/** The full rent, no deduction: the rental ran as booked. */
function fullRentCheckout(ask: Ask): StoredCheckout | DomainError {
  return split(ask, { consumption: Number(ask.order.rent), deposit_deduction: 0 }, null, []);
}

/** The rental ran out without a checkout: the full rent and the overtime up to the automatic checkout's deadline, no deduction. */
function automaticCheckout(ask: Ask): StoredCheckout | DomainError {
  const { order, now, config } = ask;
  if (order.ends_at === null) return fullRentCheckout(ask);
  const checkoutAt = automaticCheckoutAt(order.ends_at, now, config.settings, config.minuteMs);
  const overtime = overtimeAt(order, checkoutAt, config.settings, config.minuteMs);
  return split(ask, { consumption: Number(order.rent), deposit_deduction: 0, ...overtime }, null, []);
}

/** The settlement the parties agreed on completes the order. */
function settleAsProposed({ order }: Ask): Effects | DomainError {
  if (!order.checkout) return new InvalidState('order has no checkout to settle');
  return { reason: null, eventData: settlementFigures(order.checkout) };
}

/** A party raises a dispute (or the renter rejects the correction): its type follows from the state. */
function raiseDispute({ order, move, actor, now }: Ask<MoveOf<'dispute' | 'reject_checkout'>>): Effects {
  return {
    reason: move.reason,
    changes: { dispute_id: move.disputeId },
    openDispute: {
      id: move.disputeId,
      type: DISPUTE_TYPE_OF[order.status]!,
      raised_by: actor.id!,
      reason: move.reason,
      evidence_keys: move.evidenceKeys,
      created_at: now,
    },
  };
}

/** An admin's settlement: refused naming the breakdown's field, or the split (null: the escrow stays held). */
function decidedSettlement(ask: Ask, result: ArbitrationResult, breakdown: Proposal | undefined): Settlement | null | DomainError {
  const { order, config } = ask;
  const outcome = arbitratedSettlement(result, escrowOf(order), breakdown, order.checkout, feeRateOf(order, config.settings));
  if (outcome && !outcome.ok) {
    return new InvalidInput(outcome.errors.map((e) => ({ path: e.path === 'settlement' ? 'breakdown' : `breakdown.${e.path}`, message: e.message })));
  }
  return outcome?.settlement ?? null;
}

function arbitrate(result: ArbitrationResult): (ask: Ask<Arbitration>) => Effects | DomainError {
  return (ask) => {
    const { move } = ask;
    const settlement = decidedSettlement(ask, result, move.breakdown);
    if (settlement instanceof Error) return settlement;
    return {
      reason: move.note,
      ...(settlement ? { changes: { checkout: { ...settlement, reason: move.note, evidence_keys: [] } }, eventData: settlementFigures(settlement) } : {}),
      resolveDispute: { dispute: move.dispute, result, note: move.note, settlement },
    };
  };
}

/**
 * The back office closes an order (the escrow back to the renter, or split by a breakdown for a paid
 * order) or marks it abnormal (the escrow stays held); an open dispute ends with the same decision.
 * A decision naming a state the order is not in is refused (the admin decided on another), and so is
 * one on an unpaid order whose charge may still land (ChargePending says why).
 */
function adminEnd(result: 'close' | 'mark_abnormal'): (ask: Ask<AdminEnd>) => Effects | DomainError {
  return (ask) => {
    const { order, move } = ask;
    const expected = move.expectedStatus;
    if (expected !== undefined && expected !== order.status) return new OrderChanged(`the order is ${order.status}, not ${expected}; look at it again`);
    if (order.status === 'pending_payment' && order.charge_deadline_at !== null) return new ChargePending();
    if (move.breakdown && order.paid_at === null) return new InvalidState('the order was never paid; there is nothing to split');
    const settlement = result === 'close' ? decidedSettlement(ask, 'close', move.breakdown) : null;
    if (settlement instanceof Error) return settlement;
    return {
      reason: move.reason,
      ...(settlement
        ? {
            // An unpaid order has nothing to show as paid out; the wallet voids its escrow record.
            changes: order.paid_at ? { checkout: { ...settlement, reason: move.reason, evidence_keys: [] } } : {},
            eventData: settlementFigures(settlement),
          }
        : {}),
      resolveDispute: { dispute: move.openDispute, result, note: move.reason, settlement },
    };
  };
}

/**
 * A disputed or abnormal order's first deadline: the back office is alerted (an `order.overdue`
 * audit entry with result failure and an `ops.alert`) and the deadline moves to twice the threshold.
 */
function alertOverdue({ order, now, config }: Ask): Effects {
  const resolvesAt = deadlineOf({ ...order, overdue_alerted_at: now }, config.settings, config.minuteMs);
  const detail = { status: order.status, since: order.status_changed_at.toISOString(), default_resolution_at: resolvesAt?.toISOString() ?? null };
  return {
    reason: null,
    changes: { overdue_alerted_at: now },
    alert: {
      audit: { action: 'order.overdue', biz_type: 'order', biz_id: order.id, detail, result: 'failure' },
      event: {
        type: 'ops.alert',
        data: {
          alert: 'ORDER_OVERDUE',
          severity: 'warning',
          service: 'orders',
          summary: `order ${order.id} has been ${order.status} since ${detail.since} with nobody deciding; unless the back office does, the default resolution applies at ${detail.default_resolution_at ?? 'the next deadline'}`,
          subject_type: 'order',
          subject_id: order.id,
          detail,
          raised_at: now.toISOString(),
        },
      },
    },
  };
}

/**
 * The default resolution of a disputed or abnormal order past twice its threshold (ADR 0029): the
 * owner gets the rent for the hours the account was in use until the order was frozen (at the listed
 * price, at most the rent, at the order's frozen rate), no deposit deduction, the rest back to the
 * renter; an unpaid order closes with nothing to pay out. An open dispute is resolved `close`.
 */
function resolveByDefault(ask: Ask<MoveOf<'timeout'>>): Effects | DomainError {
  const { order, move } = ask;
  const escrow = escrowOf(order);
  const consumption = timedOutConsumption(0, Number(order.hourly_price), escrow.rent, order.started_at, order.status_changed_at);
  const reason = `no decision within the ${order.status} deadline: the time used at the listed price, no deduction`;
  // overtime the checkout already charged stays charged: it is rent for time the account was used
  const settlement = order.paid_at
    ? split(ask, { consumption, deposit_deduction: 0, ...overtimeIn(order.checkout) }, reason, [])
    : { ...refundAll(escrow), reason, evidence_keys: [] };
  if (settlement instanceof Error) return settlement;
  return {
    reason,
    changes: order.paid_at ? { checkout: settlement } : {},
    eventData: settlementFigures(settlement),
    resolveDispute: { dispute: move.openDispute, result: 'close', note: reason, settlement },
  };
}

/**
 * A charged renewal (ADR 0065): the rental ends `hours` later, and the order's hours, rent and amount
 * become the renewed totals, so every later checkout and settlement counts the whole rent (the
 * deposit is not charged again). The renewal's charge is no longer under way.
 */
function renewRental({ order, move }: Ask<MoveOf<'renew'>>): Effects | DomainError {
  if (order.ends_at === null) return new InvalidState('the rental has not started; there is nothing to renew');
  const endsAt = new Date(order.ends_at.getTime() + move.hours * HOUR_MS);
  return {
    reason: null,
    changes: {
      ends_at: endsAt,
      hours: order.hours + move.hours,
      rent: Number(order.rent) + move.rent,
      amount: Number(order.amount) + move.rent,
      renewal_charge_id: null,
    },
    eventData: {
      renewal_id: move.renewalId,
      added_hours: move.hours,
      added_rent: move.rent,
      previous_ends_at: order.ends_at.toISOString(),
      ends_at: endsAt.toISOString(),
    },
  };
}

/** The timed move of docs/rules.md §4 (and ADR 0029) for each state with a deadline, made by the system. */
const ON_TIMEOUT: Partial<Record<OrderState, Planner<'timeout'>>> = {
  pending_payment: () => ({ reason: 'payment timeout' }),
  pending_handoff: () => ({ reason: 'handoff timeout' }),
  pending_receive: (ask) => startRental(ask, 'receipt confirmed automatically'),
  // The rental ran out without a checkout: the full rent and the overtime past the grace, no deduction.
  in_use: (ask) => withCheckout(automaticCheckout(ask), 'rental ended'),
  // The owner did not answer: the renter's figures, but at least the time actually used (ADR 0029).
  pending_checkout_confirm: (ask) => {
    const { order } = ask;
    const proposed = order.checkout ?? { consumption: Number(order.rent), deposit_deduction: 0, reason: null, evidence_keys: [] };
    const consumption = timedOutConsumption(proposed.consumption, Number(order.hourly_price), Number(order.rent), order.started_at, order.status_changed_at);
    const proposal = { consumption, deposit_deduction: proposed.deposit_deduction, ...overtimeIn(order.checkout) };
    const checkout = split(ask, proposal, proposed.reason, proposed.evidence_keys);
    const asProposed = consumption === proposed.consumption;
    return withCheckout(checkout, asProposed ? 'checkout confirmed automatically' : 'checkout completed automatically at the time used');
  },
  pending_correction_confirm: (ask) => withCheckout(ask.order.checkout ?? fullRentCheckout(ask), 'correction accepted automatically'),
  disputed: resolveByDefault,
  abnormal: resolveByDefault,
};

const PLANNERS: { [T in MoveType]: Planner<T> } = {
  pay: ({ move, actor, config }) => ({
    reason: actor.role === 'system' ? 'charge confirmed by the wallet' : null,
    // the platform rate in force is frozen for every later settlement (issue 19 item 3)
    changes: { paid_at: move.paidAt, charge_requested_at: null, charge_deadline_at: null, fee_rate_bps: config.settings['platform.commission_rate_bps'] },
    eventData: { paid_at: move.paidAt.toISOString() },
  }),
  cancel: ({ move }) => ({ reason: move.reason }),
  // The stored-credentials handoff is made by the system in the owner's name (the contract's author roles are the parties).
  hand_over: ({ order, move, actor, now }) => ({
    reason: null,
    handoffRecord: {
      author_id: actor.role === 'renter' ? order.renter_id : order.owner_id,
      author_role: actor.role === 'renter' ? 'renter' : 'owner',
      content: move.content,
      attachment_keys: move.attachmentKeys,
      by_system: actor.role === 'system',
      created_at: now,
    },
  }),
  confirm_receive: (ask) => startRental(ask, null),
  // The renter proposes the consumption given, or the rent for the hours used, and the overtime past the grace; no deduction.
  checkout: (ask) => {
    const { order, move, now, config } = ask;
    const consumption = move.consumption ?? defaultConsumption(Number(order.hourly_price), Number(order.rent), order.started_at ?? now, now);
    const overtime = overtimeAt(order, now, config.settings, config.minuteMs);
    return withCheckout(split(ask, { consumption, deposit_deduction: 0, ...overtime }, move.reason, []), move.reason);
  },
  // The owner corrects with a reason; the consumption stays the renter's unless given, the overtime as charged,
  // and the deduction may claim only what the deposit holds after the overtime fee.
  counter_checkout: (ask) => {
    const { order, move } = ask;
    const consumption = move.consumption ?? order.checkout?.consumption ?? Number(order.rent);
    const proposal = { consumption, deposit_deduction: move.depositDeduction, ...overtimeIn(order.checkout) };
    return withCheckout(split(ask, proposal, move.reason, move.evidenceKeys), move.reason);
  },
  confirm_checkout: settleAsProposed,
  accept_checkout: settleAsProposed,
  dispute: raiseDispute,
  reject_checkout: raiseDispute,
  timeout: (ask) => (ask.trigger === 'overdue' ? alertOverdue(ask) : ON_TIMEOUT[ask.order.status]!(ask)),
  arbitrate_complete: arbitrate('complete'),
  arbitrate_close: arbitrate('close'),
  arbitrate_mark_abnormal: arbitrate('mark_abnormal'),
  admin_close: adminEnd('close'),
  admin_mark_abnormal: adminEnd('mark_abnormal'),
  renew: renewRental,
};

/** What the move asked does, or why it may not be made after all (a checkout to settle, a valid split, a stale decision). */
export function effectsOf(ask: Ask): Effects | DomainError {
  return (PLANNERS[ask.move.type] as (ask: Ask) => Effects | DomainError)(ask);
}
