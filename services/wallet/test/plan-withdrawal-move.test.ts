import type { MoneyMoveRole } from '../src/domain/money-move-table';
import { MOVE_DONE, planWithdrawalMove, type WithdrawalMove, type WithdrawalPlan } from '../src/domain/plan-withdrawal-move';
import type { WithdrawalState } from '../src/domain/withdrawal';
import { ADMIN, describeMoneyMoveTable, NOW, OWNER, settled } from './money-move-listing';

const PAID_AT = new Date('2026-11-25T09:59:00Z');
const RECHECK_AT = new Date('2026-11-25T10:02:00Z');
const REVERSAL_CHECK_AT = new Date('2026-11-26T10:00:00Z');
const EVIDENCE = { providerTransferId: '20261125110070000002', billLine: '2026-11-25 09:58 转账 30.00 成功' };

// Every state a withdrawal can be in; null is one being requested, not stored yet.
const STATES: Array<WithdrawalState | null> = [null, 'pending_review', 'processing', 'paid', 'failed', 'rejected', 'cancelled', 'reversed'];

const MOVES: WithdrawalMove[] = [
  { name: 'request' },
  { name: 'approve' },
  { name: 'auto_approve', below: 5_000 },
  { name: 'reject', reason: 'payee unknown' },
  { name: 'cancel' },
  { name: 'transfer_succeeded', paidAt: PAID_AT, providerOrderId: 'P-1', reversalCheckAt: REVERSAL_CHECK_AT },
  { name: 'transfer_failed', reason: 'PAYEE_ACCOUNT_ERROR' },
  { name: 'transfer_unknown', recheckAt: RECHECK_AT, alert: false },
  { name: 'transfer_unknown', recheckAt: RECHECK_AT, alert: true },
  { name: 'transfer_awaiting_payee', confirmation: 'pkg-1', recheckAt: RECHECK_AT, alert: false },
  { name: 'transfer_not_found' },
  { name: 'transfer_reversed', reason: 'REFUND' },
  { name: 'reversal_check_done' },
  { name: 'resolve_paid', evidence: EVIDENCE },
  { name: 'resolve_failed', evidence: EVIDENCE, reason: 'no such transfer in the bill' },
];

/** A transfer that ends failed for `reason`: nothing reached the payee, so the hold goes back to the user. */
const failedFor = (reason: string): WithdrawalPlan => settled('failed', { reason, finished_at: NOW, next_check_at: null }, 'release', 'withdrawal.failed');

/*
 * What each allowed (state, move, actor) does, written out from ADR 0032 and the API's description of
 * withdrawals, not from the table under test.
 */
const ALLOWED: Record<string, WithdrawalPlan> = {
  'new request owner': {
    next: 'pending_review',
    stamps: {},
    effects: [
      { kind: 'hold', transfer: 'take' },
      { kind: 'event', type: 'withdrawal.requested' },
    ],
  },
  'pending_review approve admin': {
    next: 'processing',
    stamps: { decided_at: NOW, decided_by: ADMIN, next_check_at: NOW },
    effects: [
      { kind: 'event', type: 'withdrawal.approved', approvedBy: ADMIN },
      { kind: 'audit', action: 'withdrawal.approve', detail: { amount: 3_000, user_id: OWNER } },
      { kind: 'send_transfer' },
    ],
  },
  'pending_review auto_approve system': {
    next: 'processing',
    stamps: { decided_at: NOW, next_check_at: NOW },
    effects: [
      { kind: 'event', type: 'withdrawal.approved', approvedBy: null },
      { kind: 'audit', action: 'withdrawal.auto_approve', detail: { amount: 3_000, below: 5_000 } },
      { kind: 'send_transfer' },
    ],
  },
  'pending_review reject admin': {
    next: 'rejected',
    stamps: { decided_at: NOW, decided_by: ADMIN, reason: 'payee unknown', finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'release' },
      { kind: 'event', type: 'withdrawal.rejected', rejectedBy: ADMIN },
      { kind: 'audit', action: 'withdrawal.reject', detail: { amount: 3_000, user_id: OWNER, reason: 'payee unknown' } },
    ],
  },
  'pending_review cancel owner': {
    next: 'cancelled',
    stamps: { finished_at: NOW, next_check_at: null },
    effects: [{ kind: 'hold', transfer: 'release' }],
  },
  // paid: looked at once more later, for a return
  'processing transfer_succeeded provider': settled('paid', { paid_at: PAID_AT, provider_order_id: 'P-1', finished_at: NOW, next_check_at: REVERSAL_CHECK_AT }, 'pay_out', 'withdrawal.paid'),
  'processing transfer_failed provider': failedFor('PAYEE_ACCOUNT_ERROR'),
  // the provider cannot say yet: looked at again later (backoff), the back office told once when it lasts
  'processing transfer_unknown provider': { next: 'processing', stamps: { next_check_at: RECHECK_AT }, effects: [] },
  'processing transfer_unknown+alert provider': {
    next: 'processing',
    stamps: { next_check_at: RECHECK_AT, unknown_alerted_at: NOW },
    effects: [{ kind: 'alert', alert: 'WITHDRAWAL_UNKNOWN' }],
  },
  // the payee must confirm in WeChat: the confirmation is kept for the owner's view
  'processing transfer_awaiting_payee provider': { next: 'processing', stamps: { payee_confirmation: 'pkg-1', next_check_at: RECHECK_AT }, effects: [] },
  // the provider never received it: sent again under the same id, which it pays once at most
  'processing transfer_not_found provider': { next: 'processing', stamps: {}, effects: [{ kind: 'send_transfer' }] },
  // returned before it was known paid: nothing reached the payee, as for a failure
  'processing transfer_reversed provider': failedFor('REFUND'),
  'processing resolve_paid admin': {
    next: 'paid',
    stamps: { paid_at: NOW, provider_order_id: EVIDENCE.providerTransferId, finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'pay_out' },
      { kind: 'event', type: 'withdrawal.paid' },
      {
        kind: 'audit',
        action: 'withdrawal.resolve',
        detail: { amount: 3_000, user_id: OWNER, outcome: 'paid', provider_transfer_id: EVIDENCE.providerTransferId, bill_line: EVIDENCE.billLine },
      },
    ],
  },
  'processing resolve_failed admin': {
    next: 'failed',
    stamps: { reason: 'no such transfer in the bill', finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'release' },
      { kind: 'event', type: 'withdrawal.failed' },
      {
        kind: 'audit',
        action: 'withdrawal.resolve',
        detail: {
          amount: 3_000,
          user_id: OWNER,
          outcome: 'failed',
          provider_transfer_id: EVIDENCE.providerTransferId,
          bill_line: EVIDENCE.billLine,
          reason: 'no such transfer in the bill',
        },
      },
    ],
  },
  // paid, then returned: the amount comes back from the payout account to the user
  'paid transfer_reversed provider': {
    next: 'reversed',
    stamps: { reason: 'REFUND', next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'return' },
      { kind: 'event', type: 'withdrawal.reversed' },
      { kind: 'audit', action: 'withdrawal.reverse', detail: { amount: 3_000, user_id: OWNER, reason: 'REFUND' } },
    ],
  },
  // the look for a return: still paid ends the looking; no answer asks again later, with no alert
  'paid reversal_check_done provider': { next: 'paid', stamps: { next_check_at: null }, effects: [] },
  'paid transfer_unknown provider': { next: 'paid', stamps: { next_check_at: RECHECK_AT }, effects: [] },
  'paid transfer_unknown+alert provider': { next: 'paid', stamps: { next_check_at: RECHECK_AT }, effects: [] },
};

/** The moves each actor may make at all; any other move of theirs is forbidden whatever the state. */
const MAY: Record<MoneyMoveRole, string[]> = {
  owner: ['request', 'cancel'],
  stranger: [],
  admin: ['approve', 'reject', 'resolve_paid', 'resolve_failed'],
  system: ['auto_approve'],
  provider: ['transfer_succeeded', 'transfer_failed', 'transfer_unknown', 'transfer_awaiting_payee', 'transfer_not_found', 'transfer_reversed', 'reversal_check_done'],
};

/** A look whose outcome stayed unknown is keyed by whether it alerts. */
const keyOf = (move: WithdrawalMove) => (move.name === 'transfer_unknown' && move.alert ? 'transfer_unknown+alert' : move.name);

describeMoneyMoveTable('planning a withdrawal move', { noun: 'withdrawal', planner: planWithdrawalMove, states: STATES, moves: MOVES, cells: 8 * 15 * 5, keyOf, allowed: ALLOWED, may: MAY, moveDone: MOVE_DONE });
