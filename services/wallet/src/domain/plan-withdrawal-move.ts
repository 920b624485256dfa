import { DomainError, Forbidden, InvalidState, NotFound } from '@market/shared/errors';
import type { WithdrawalState } from './withdrawal';

/** What moves a withdrawal: the requester, the back office, the auto-approval, or the payout provider's answer. */
export type WithdrawalMove =
  | { name: 'request' }
  | { name: 'approve' }
  | { name: 'auto_approve'; below: number }
  | { name: 'reject'; reason: string }
  | { name: 'cancel' }
  | { name: 'transfer_succeeded'; paidAt: Date; providerOrderId: string | null }
  | { name: 'transfer_failed'; reason: string }
  /** sent or asked about, and the provider cannot say yet */
  | { name: 'transfer_unknown' }
  /** asked about, and the provider says it never received the transfer */
  | { name: 'transfer_not_found' };

export type WithdrawalMoveName = WithdrawalMove['name'];

/** Who moves it; a user is the withdrawal's `owner` or a `stranger` to it. */
export type WithdrawalActor = { kind: 'user'; id: string } | { kind: 'admin'; id: string } | { kind: 'system' } | { kind: 'provider' };

export type WithdrawalRole = 'owner' | 'stranger' | 'admin' | 'system' | 'provider';

/** The withdrawal as the plan reads it; `status` null is one being requested, not yet stored. */
export interface PlannedWithdrawal {
  id: string;
  user_id: string;
  amount: string | number;
  status: WithdrawalState | null;
}

/** Where the held amount goes: from the user's balance into the hold, out to the provider, or back to the user. */
export type HoldTransfer = 'take' | 'pay_out' | 'release';

/** What happens beside the state change, in this order, as data for the application to carry out. */
export type WithdrawalEffect =
  | { kind: 'hold'; transfer: HoldTransfer }
  | { kind: 'event'; type: 'withdrawal.requested' | 'withdrawal.paid' | 'withdrawal.failed' }
  | { kind: 'event'; type: 'withdrawal.approved'; approvedBy: string | null }
  | { kind: 'event'; type: 'withdrawal.rejected'; rejectedBy: string }
  | { kind: 'audit'; action: 'withdrawal.approve' | 'withdrawal.auto_approve' | 'withdrawal.reject'; detail: Record<string, unknown> }
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
}

export interface WithdrawalPlan {
  next: WithdrawalState;
  stamps: WithdrawalStamps;
  effects: WithdrawalEffect[];
}

/** One allowed (state, move, actor) cell of the table and what it does. */
interface Cell {
  from: WithdrawalState | null;
  move: WithdrawalMoveName;
  actor: WithdrawalRole;
  to: WithdrawalState;
  /** the decision is stamped (when, and by whom if a person) */
  decided?: true;
  hold?: HoldTransfer;
  event?: 'withdrawal.requested' | 'withdrawal.approved' | 'withdrawal.rejected' | 'withdrawal.paid' | 'withdrawal.failed';
  audit?: 'withdrawal.approve' | 'withdrawal.auto_approve' | 'withdrawal.reject';
  send?: true;
}

/**
 * The withdrawal state table (ADR 0032): every (state, move, actor) not listed is refused. `paid`,
 * `failed`, `rejected` and `cancelled` are final and nothing moves them; a withdrawal being sent
 * (`processing`) moves only by the provider's answer.
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
  { from: 'processing', move: 'transfer_not_found', actor: 'provider', to: 'processing', send: true },
];

const isFinalWithdrawal = (state: WithdrawalState | null) => state !== null && state !== 'pending_review' && state !== 'processing';

function roleOf(withdrawal: PlannedWithdrawal, actor: WithdrawalActor): WithdrawalRole {
  if (actor.kind === 'user') return actor.id === withdrawal.user_id ? 'owner' : 'stranger';
  return actor.kind;
}

const actorId = (actor: WithdrawalActor) => (actor.kind === 'user' || actor.kind === 'admin' ? actor.id : null);

function stampsOf(cell: Cell, withdrawal: PlannedWithdrawal, move: WithdrawalMove, actor: WithdrawalActor, now: Date): WithdrawalStamps {
  const stamps: WithdrawalStamps = {};
  const by = actorId(actor);
  if (cell.decided) {
    stamps.decided_at = now;
    if (by !== null) stamps.decided_by = by;
  }
  if (move.name === 'reject' || move.name === 'transfer_failed') stamps.reason = move.reason;
  if (move.name === 'transfer_succeeded') {
    stamps.paid_at = move.paidAt;
    stamps.provider_order_id = move.providerOrderId;
  }
  // entering `processing`, the first look at the transfer is due at once
  if (cell.to === 'processing' && withdrawal.status !== 'processing') stamps.next_check_at = now;
  if (isFinalWithdrawal(cell.to)) {
    stamps.finished_at = now;
    stamps.next_check_at = null;
  }
  return stamps;
}

function auditDetail(withdrawal: PlannedWithdrawal, move: WithdrawalMove): Record<string, unknown> {
  const amount = Number(withdrawal.amount);
  if (move.name === 'auto_approve') return { amount, below: move.below };
  if (move.name === 'reject') return { amount, user_id: withdrawal.user_id, reason: move.reason };
  return { amount, user_id: withdrawal.user_id };
}

function effectsOf(cell: Cell, withdrawal: PlannedWithdrawal, move: WithdrawalMove, actor: WithdrawalActor): WithdrawalEffect[] {
  const effects: WithdrawalEffect[] = [];
  if (cell.hold) effects.push({ kind: 'hold', transfer: cell.hold });
  if (cell.event === 'withdrawal.approved') effects.push({ kind: 'event', type: cell.event, approvedBy: actorId(actor) });
  else if (cell.event === 'withdrawal.rejected') effects.push({ kind: 'event', type: cell.event, rejectedBy: actorId(actor)! });
  else if (cell.event === 'withdrawal.requested' || cell.event === 'withdrawal.paid' || cell.event === 'withdrawal.failed') effects.push({ kind: 'event', type: cell.event });
  if (cell.audit) effects.push({ kind: 'audit', action: cell.audit, detail: auditDetail(withdrawal, move) });
  if (cell.send) effects.push({ kind: 'send_transfer' });
  return effects;
}

/** How a refusal names the move done ("it cannot be cancelled"). */
const MOVE_DONE: Record<WithdrawalMove['name'], string> = {
  request: 'requested',
  approve: 'approved',
  auto_approve: 'approved',
  reject: 'rejected',
  cancel: 'cancelled',
  transfer_succeeded: 'marked paid',
  transfer_failed: 'marked failed',
  transfer_unknown: 'left in doubt',
  transfer_not_found: 'sent again',
};

/**
 * What `move` by `actor` does to `withdrawal` now: the refusal, or the next state with the fields
 * it stamps and its effects, from the table alone. A user never learns of another's withdrawal
 * (NOT_FOUND); a move the actor may never make is FORBIDDEN; one it may make, but not from this
 * state, is INVALID_STATE.
 */
export function planWithdrawalMove(withdrawal: PlannedWithdrawal, move: WithdrawalMove, actor: WithdrawalActor, now: Date): WithdrawalPlan | DomainError {
  const role = roleOf(withdrawal, actor);
  if (role === 'stranger') return new NotFound('withdrawal not found');
  const cell = WITHDRAWAL_CELLS.find((c) => c.from === withdrawal.status && c.move === move.name && c.actor === role);
  if (!cell) {
    if (!WITHDRAWAL_CELLS.some((c) => c.move === move.name && c.actor === role)) return new Forbidden();
    return new InvalidState(`the withdrawal is ${withdrawal.status ?? 'not requested yet'}; it cannot be ${MOVE_DONE[move.name]}`);
  }
  return { next: cell.to, stamps: stampsOf(cell, withdrawal, move, actor, now), effects: effectsOf(cell, withdrawal, move, actor) };
}
