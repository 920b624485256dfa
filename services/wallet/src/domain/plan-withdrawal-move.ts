import type { Planned } from '@market/shared/planning';
import {
  actorId,
  cellEffects,
  decisionStamps,
  planMoneyMove,
  type HoldEffect,
  type HoldTransfer,
  type MoneyMoveActor,
  type MoneyMoveCell,
  type MoneyMovePlan,
  type PlannedMoneyMove,
} from './money-move-table';
import type { WithdrawalState } from './withdrawal';

/** The evidence finance settles an unknown transfer on: the provider's transfer id and the bill line (or support's answer). */
export interface ResolutionEvidence {
  providerTransferId: string;
  billLine: string;
}

/** What moves a withdrawal: the requester, the back office, the auto-approval, or the payout provider's answer. */
export type WithdrawalMove =
  | { name: 'request' }
  | { name: 'approve' }
  | { name: 'auto_approve'; below: number }
  | { name: 'reject'; reason: string }
  | { name: 'cancel' }
  /** `reversalCheckAt`: when a paid transfer is asked about once more, for a return (null: never) */
  | { name: 'transfer_succeeded'; paidAt: Date; providerOrderId: string | null; reversalCheckAt: Date | null }
  | { name: 'transfer_failed'; reason: string }
  /** sent or asked about, and the provider cannot say yet: asked again at `recheckAt`; `alert` once it stayed unknown too long */
  | { name: 'transfer_unknown'; recheckAt: Date; alert: boolean }
  /** accepted, and the payee must confirm the receipt in the provider's app with `confirmation` */
  | { name: 'transfer_awaiting_payee'; confirmation: string; recheckAt: Date; alert: boolean }
  /** asked about, and the provider says it never received the transfer */
  | { name: 'transfer_not_found' }
  /** the provider paid the transfer and then took it back (Alipay's `REFUND`) */
  | { name: 'transfer_reversed'; reason: string }
  /** the look for a return of a paid transfer found it still paid */
  | { name: 'reversal_check_done' }
  /** finance settles a transfer whose outcome stayed unknown, on the provider's evidence */
  | { name: 'resolve_paid'; evidence: ResolutionEvidence }
  | { name: 'resolve_failed'; evidence: ResolutionEvidence; reason: string };

export type WithdrawalMoveName = WithdrawalMove['name'];

/** Who moves it; a user is the withdrawal's `owner` or a `stranger` to it. */
export type WithdrawalActor = MoneyMoveActor;

type PlannedWithdrawal = PlannedMoneyMove<WithdrawalState>;

export type { HoldTransfer };

type WithdrawalEventType = 'withdrawal.requested' | 'withdrawal.approved' | 'withdrawal.rejected' | 'withdrawal.paid' | 'withdrawal.failed' | 'withdrawal.reversed';
type WithdrawalAuditAction = 'withdrawal.approve' | 'withdrawal.auto_approve' | 'withdrawal.reject' | 'withdrawal.reverse' | 'withdrawal.resolve';

/** What happens beside the state change, in this order, as data for the application to carry out. */
export type WithdrawalEffect =
  | HoldEffect
  | { kind: 'event'; type: 'withdrawal.requested' | 'withdrawal.paid' | 'withdrawal.failed' | 'withdrawal.reversed' }
  | { kind: 'event'; type: 'withdrawal.approved'; approvedBy: string | null }
  | { kind: 'event'; type: 'withdrawal.rejected'; rejectedBy: string }
  | { kind: 'audit'; action: WithdrawalAuditAction; detail: Record<string, unknown> }
  /** the back office is told (`ops.alert`) that the transfer's outcome has stayed unknown too long */
  | { kind: 'alert'; alert: 'WITHDRAWAL_UNKNOWN' }
  /** the transfer is sent to the provider once the move has committed */
  | { kind: 'send_transfer' };

/** The fields a move writes beside the status. */
export interface WithdrawalStamps {
  reason?: string;
  decided_by?: string;
  decided_at?: Date;
  next_check_at?: Date | null;
  provider_order_id?: string | null;
  paid_at?: Date;
  finished_at?: Date;
  payee_confirmation?: string;
  unknown_alerted_at?: Date;
}

export type WithdrawalPlan = MoneyMovePlan<WithdrawalState, WithdrawalStamps, WithdrawalEffect>;

type Cell = MoneyMoveCell<WithdrawalState, WithdrawalMoveName, WithdrawalEventType, WithdrawalAuditAction>;

/**
 * The withdrawal state table (ADR 0032, ADR 0049): every (state, move, actor) not listed is refused.
 * `failed`, `rejected`, `cancelled` and `reversed` are final and nothing moves them; `paid` is final
 * for the money but moves to `reversed` if the provider returns the transfer. A withdrawal being
 * sent (`processing`) moves by the provider's answer, or by finance's resolution on evidence.
 */
const WITHDRAWAL_CELLS: readonly Cell[] = [
  { from: null, move: 'request', actor: 'owner', to: 'pending_review', hold: 'take', event: 'withdrawal.requested' },
  { from: 'pending_review', move: 'approve', actor: 'admin', to: 'processing', decided: true, event: 'withdrawal.approved', audit: 'withdrawal.approve', send: true },
  { from: 'pending_review', move: 'auto_approve', actor: 'system', to: 'processing', decided: true, event: 'withdrawal.approved', audit: 'withdrawal.auto_approve', send: true },
  { from: 'pending_review', move: 'reject', actor: 'admin', to: 'rejected', decided: true, hold: 'release', event: 'withdrawal.rejected', audit: 'withdrawal.reject' },
  { from: 'pending_review', move: 'cancel', actor: 'owner', to: 'cancelled', hold: 'release' },
  { from: 'processing', move: 'transfer_succeeded', actor: 'provider', to: 'paid', hold: 'pay_out', event: 'withdrawal.paid' },
  { from: 'processing', move: 'transfer_failed', actor: 'provider', to: 'failed', hold: 'release', event: 'withdrawal.failed' },
  { from: 'processing', move: 'transfer_unknown', actor: 'provider', to: 'processing' },
  { from: 'processing', move: 'transfer_awaiting_payee', actor: 'provider', to: 'processing' },
  { from: 'processing', move: 'transfer_not_found', actor: 'provider', to: 'processing', send: true },
  // returned before we learnt it was paid: the money never left, as for a failure
  { from: 'processing', move: 'transfer_reversed', actor: 'provider', to: 'failed', hold: 'release', event: 'withdrawal.failed' },
  { from: 'processing', move: 'resolve_paid', actor: 'admin', to: 'paid', hold: 'pay_out', event: 'withdrawal.paid', audit: 'withdrawal.resolve' },
  { from: 'processing', move: 'resolve_failed', actor: 'admin', to: 'failed', hold: 'release', event: 'withdrawal.failed', audit: 'withdrawal.resolve' },
  { from: 'paid', move: 'transfer_reversed', actor: 'provider', to: 'reversed', hold: 'return', event: 'withdrawal.reversed', audit: 'withdrawal.reverse' },
  // the look for a return: still paid ends it, no answer asks again later
  { from: 'paid', move: 'reversal_check_done', actor: 'provider', to: 'paid' },
  { from: 'paid', move: 'transfer_unknown', actor: 'provider', to: 'paid' },
];

const isFinalWithdrawal = (state: WithdrawalState | null) => state !== null && state !== 'pending_review' && state !== 'processing';

function stampsOf(cell: Cell, withdrawal: PlannedWithdrawal, move: WithdrawalMove, actor: WithdrawalActor, now: Date): WithdrawalStamps {
  const stamps: WithdrawalStamps = decisionStamps(cell, actor, now);
  if (move.name === 'reject' || move.name === 'transfer_failed' || move.name === 'transfer_reversed' || move.name === 'resolve_failed') stamps.reason = move.reason;
  if (move.name === 'transfer_succeeded' && withdrawal.status === 'processing') {
    stamps.paid_at = move.paidAt;
    stamps.provider_order_id = move.providerOrderId;
  }
  if (move.name === 'resolve_paid') {
    stamps.paid_at = now;
    stamps.provider_order_id = move.evidence.providerTransferId;
  }
  if (move.name === 'transfer_awaiting_payee') stamps.payee_confirmation = move.confirmation;
  if ((move.name === 'transfer_unknown' || move.name === 'transfer_awaiting_payee') && move.alert && cell.to === 'processing') stamps.unknown_alerted_at = now;
  // entering `processing`, the first look at the transfer is due at once
  if (cell.to === 'processing' && withdrawal.status !== 'processing') stamps.next_check_at = now;
  if (isFinalWithdrawal(cell.to) && !isFinalWithdrawal(withdrawal.status)) stamps.finished_at = now;
  if (cell.to !== 'processing' && cell.to !== 'pending_review') stamps.next_check_at = null;
  if (move.name === 'transfer_unknown' || move.name === 'transfer_awaiting_payee') stamps.next_check_at = move.recheckAt;
  // a paid transfer is looked at once more, later, for a return
  if (move.name === 'transfer_succeeded' && withdrawal.status === 'processing') stamps.next_check_at = move.reversalCheckAt;
  return stamps;
}

function auditDetail(withdrawal: PlannedWithdrawal, move: WithdrawalMove): Record<string, unknown> {
  const amount = Number(withdrawal.amount);
  if (move.name === 'auto_approve') return { amount, below: move.below };
  if (move.name === 'reject' || move.name === 'transfer_reversed') return { amount, user_id: withdrawal.user_id, reason: move.reason };
  if (move.name === 'resolve_paid' || move.name === 'resolve_failed') {
    return {
      amount,
      user_id: withdrawal.user_id,
      outcome: move.name === 'resolve_paid' ? 'paid' : 'failed',
      provider_transfer_id: move.evidence.providerTransferId,
      bill_line: move.evidence.billLine,
      ...(move.name === 'resolve_failed' ? { reason: move.reason } : {}),
    };
  }
  return { amount, user_id: withdrawal.user_id };
}

function eventOf(cell: Cell, actor: WithdrawalActor): WithdrawalEffect | null {
  if (cell.event === 'withdrawal.approved') return { kind: 'event', type: cell.event, approvedBy: actorId(actor) };
  if (cell.event === 'withdrawal.rejected') return { kind: 'event', type: cell.event, rejectedBy: actorId(actor)! };
  return cell.event ? { kind: 'event', type: cell.event } : null;
}

function effectsOf(cell: Cell, withdrawal: PlannedWithdrawal, move: WithdrawalMove, actor: WithdrawalActor): WithdrawalEffect[] {
  const alerted = (move.name === 'transfer_unknown' || move.name === 'transfer_awaiting_payee') && move.alert && cell.to === 'processing';
  return cellEffects<WithdrawalEffect>(
    cell,
    [
      eventOf(cell, actor),
      cell.audit && { kind: 'audit', action: cell.audit, detail: auditDetail(withdrawal, move) },
      alerted ? { kind: 'alert', alert: 'WITHDRAWAL_UNKNOWN' } : null,
    ],
    { kind: 'send_transfer' },
  );
}

/** How a refusal names the move done ("it cannot be cancelled"): wording, which the tests read from here rather than restate. */
export const MOVE_DONE: Record<WithdrawalMove['name'], string> = {
  request: 'requested',
  approve: 'approved',
  auto_approve: 'approved',
  reject: 'rejected',
  cancel: 'cancelled',
  transfer_succeeded: 'marked paid',
  transfer_failed: 'marked failed',
  transfer_unknown: 'left in doubt',
  transfer_awaiting_payee: 'left to the payee',
  transfer_not_found: 'sent again',
  transfer_reversed: 'reversed',
  reversal_check_done: 'checked for a return',
  resolve_paid: 'resolved as paid',
  resolve_failed: 'resolved as failed',
};

/**
 * What `move` by `actor` does to `withdrawal` now: the refusal, or the next state with the fields
 * it stamps and its effects, from the table alone (refused as every money-out move is: see
 * `planMoneyMove`).
 */
export function planWithdrawalMove(withdrawal: PlannedWithdrawal, move: WithdrawalMove, actor: WithdrawalActor, now: Date): Planned<WithdrawalPlan> {
  return planMoneyMove({ cells: WITHDRAWAL_CELLS, noun: 'withdrawal', moveDone: MOVE_DONE }, withdrawal, move.name, actor, (cell) => ({
    stamps: stampsOf(cell, withdrawal, move, actor, now),
    effects: effectsOf(cell, withdrawal, move, actor),
  }));
}
