import type { Planned } from '@market/shared/planning';
import { cellEffects, decisionStamps, planMoneyMove, type HoldEffect, type MoneyMoveActor, type MoneyMoveCell, type MoneyMovePlan, type PlannedMoneyMove } from './money-move-table';
import { FINAL_REFUND_STATES, type RefundState } from './refund';

/** What moves a refund: its user, finance, the sender, or the provider's answer. */
export type RefundMove =
  | { name: 'request' }
  /** finance opens a refund of money that arrived late or with another amount: approved at once */
  | { name: 'start' }
  | { name: 'approve' }
  | { name: 'reject'; reason: string }
  /** the first ask to the provider is about to leave */
  | { name: 'send' }
  | { name: 'refund_succeeded'; refundedAt: Date; providerRefundId: string | null }
  | { name: 'refund_failed'; reason: string }
  /** sent or asked about, and the provider cannot say yet */
  | { name: 'refund_unknown' }
  /** asked about, and the provider says it never received the refund */
  | { name: 'refund_not_found' };

export type RefundMoveName = RefundMove['name'];

/** Who moves it; a user is the refund's `owner` or a `stranger` to it. */
export type RefundActor = MoneyMoveActor;

type PlannedRefund = PlannedMoneyMove<RefundState>;

export type RefundEventType = 'refund.requested' | 'refund.rejected' | 'refund.refunded' | 'refund.failed';
export type RefundAuditAction = 'refund.start' | 'refund.approve' | 'refund.reject';

/** What happens beside the state change, in this order, as data for the application to carry out. */
export type RefundEffect =
  | HoldEffect
  | { kind: 'event'; type: RefundEventType }
  | { kind: 'audit'; action: RefundAuditAction; detail: Record<string, unknown> }
  /** the refund is sent to the provider once the move has committed */
  | { kind: 'send_refund' };

/** The fields a move writes beside the status. */
export interface RefundStamps {
  reason?: string;
  decided_by?: string;
  decided_at?: Date;
  sent_at?: Date;
  next_check_at?: Date | null;
  provider_refund_id?: string | null;
  refunded_at?: Date;
  finished_at?: Date;
}

export type RefundPlan = MoneyMovePlan<RefundState, RefundStamps, RefundEffect>;

type Cell = MoneyMoveCell<RefundState, RefundMoveName, RefundEventType, RefundAuditAction>;

/**
 * The refund state table (ADR 0050): every (state, move, actor) not listed is refused. Nothing is
 * held while a request waits for review: the amount leaves the available balance when finance
 * approves, so an approval can find it spent (and changes nothing). `refunded`, `failed` and
 * `rejected` are final; a refund sent (`processing`) moves only by the provider's answer.
 */
const REFUND_CELLS: readonly Cell[] = [
  { from: null, move: 'request', actor: 'owner', to: 'requested', event: 'refund.requested' },
  { from: null, move: 'start', actor: 'admin', to: 'approved', decided: true, hold: 'take', audit: 'refund.start', send: true },
  { from: 'requested', move: 'approve', actor: 'admin', to: 'approved', decided: true, hold: 'take', audit: 'refund.approve', send: true },
  { from: 'requested', move: 'reject', actor: 'admin', to: 'rejected', decided: true, event: 'refund.rejected', audit: 'refund.reject' },
  { from: 'approved', move: 'send', actor: 'system', to: 'processing' },
  { from: 'processing', move: 'refund_succeeded', actor: 'provider', to: 'refunded', hold: 'pay_out', event: 'refund.refunded' },
  { from: 'processing', move: 'refund_failed', actor: 'provider', to: 'failed', hold: 'release', event: 'refund.failed' },
  { from: 'processing', move: 'refund_unknown', actor: 'provider', to: 'processing' },
  { from: 'processing', move: 'refund_not_found', actor: 'provider', to: 'processing', send: true },
];

const isFinal = (state: RefundState | null) => state !== null && FINAL_REFUND_STATES.includes(state);

function stampsOf(cell: Cell, move: RefundMove, actor: RefundActor, now: Date): RefundStamps {
  const stamps: RefundStamps = decisionStamps(cell, actor, now);
  if (move.name === 'reject' || move.name === 'refund_failed') stamps.reason = move.reason;
  if (move.name === 'send') stamps.sent_at = now;
  if (move.name === 'refund_succeeded') {
    stamps.refunded_at = move.refundedAt;
    stamps.provider_refund_id = move.providerRefundId;
  }
  // approved, the first look (the send) is due at once
  if (cell.to === 'approved') stamps.next_check_at = now;
  if (isFinal(cell.to)) {
    stamps.finished_at = now;
    stamps.next_check_at = null;
  }
  return stamps;
}

function auditDetail(refund: PlannedRefund, move: RefundMove): Record<string, unknown> {
  const detail = { amount: Number(refund.amount), user_id: refund.user_id };
  return move.name === 'reject' ? { ...detail, reason: move.reason } : detail;
}

function effectsOf(cell: Cell, refund: PlannedRefund, move: RefundMove): RefundEffect[] {
  return cellEffects<RefundEffect>(
    cell,
    [cell.event && { kind: 'event', type: cell.event }, cell.audit && { kind: 'audit', action: cell.audit, detail: auditDetail(refund, move) }],
    { kind: 'send_refund' },
  );
}

/** How a refusal names the move done ("it cannot be approved"): wording, which the tests read from here rather than restate. */
export const MOVE_DONE: Record<RefundMoveName, string> = {
  request: 'requested',
  start: 'started',
  approve: 'approved',
  reject: 'rejected',
  send: 'sent',
  refund_succeeded: 'marked refunded',
  refund_failed: 'marked failed',
  refund_unknown: 'left in doubt',
  refund_not_found: 'sent again',
};

/**
 * What `move` by `actor` does to `refund` now: the refusal, or the next state with the fields it
 * stamps and its effects, from the table alone (refused as every money-out move is: see
 * `planMoneyMove`).
 */
export function planRefundMove(refund: PlannedRefund, move: RefundMove, actor: RefundActor, now: Date): Planned<RefundPlan> {
  return planMoneyMove({ cells: REFUND_CELLS, noun: 'refund', moveDone: MOVE_DONE }, refund, move.name, actor, (cell) => ({
    stamps: stampsOf(cell, move, actor, now),
    effects: effectsOf(cell, refund, move),
  }));
}
