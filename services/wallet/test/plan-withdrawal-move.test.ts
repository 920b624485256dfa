import { everyCell, isRefusal } from '@market/shared/planning';
import { MOVE_DONE, planWithdrawalMove, type WithdrawalActor, type WithdrawalMove, type WithdrawalPlan } from '../src/domain/plan-withdrawal-move';
import type { WithdrawalState } from '../src/domain/withdrawal';

const OWNER = '0193a1b2-0000-7000-8000-00000000000a';
const OTHER = '0193a1b2-0000-7000-8000-00000000000b';
const ADMIN = '0193a1b2-0000-7000-8000-00000000000c';
const WITHDRAWAL = '0193a1b2-0000-7000-8000-0000000000ff';
const NOW = new Date('2026-11-25T10:00:00Z');
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

/** A move's key in the table below: its name, and for a look whose outcome stayed unknown whether it alerts. */
const keyOf = (move: WithdrawalMove) => (move.name === 'transfer_unknown' && move.alert ? 'transfer_unknown+alert' : move.name);

const ACTORS: Record<'owner' | 'stranger' | 'admin' | 'system' | 'provider', WithdrawalActor> = {
  owner: { kind: 'user', id: OWNER },
  stranger: { kind: 'user', id: OTHER },
  admin: { kind: 'admin', id: ADMIN },
  system: { kind: 'system' },
  provider: { kind: 'provider' },
};
type Role = keyof typeof ACTORS;

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
  'processing transfer_succeeded provider': {
    next: 'paid',
    stamps: { paid_at: PAID_AT, provider_order_id: 'P-1', finished_at: NOW, next_check_at: REVERSAL_CHECK_AT },
    effects: [
      { kind: 'hold', transfer: 'pay_out' },
      { kind: 'event', type: 'withdrawal.paid' },
    ],
  },
  'processing transfer_failed provider': {
    next: 'failed',
    stamps: { reason: 'PAYEE_ACCOUNT_ERROR', finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'release' },
      { kind: 'event', type: 'withdrawal.failed' },
    ],
  },
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
  'processing transfer_reversed provider': {
    next: 'failed',
    stamps: { reason: 'REFUND', finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'release' },
      { kind: 'event', type: 'withdrawal.failed' },
    ],
  },
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
const MAY: Record<Role, string[]> = {
  owner: ['request', 'cancel'],
  stranger: [],
  admin: ['approve', 'reject', 'resolve_paid', 'resolve_failed'],
  system: ['auto_approve'],
  provider: ['transfer_succeeded', 'transfer_failed', 'transfer_unknown', 'transfer_awaiting_payee', 'transfer_not_found', 'transfer_reversed', 'reversal_check_done'],
};

function expected(state: WithdrawalState | null, move: WithdrawalMove, role: Role): WithdrawalPlan | { code: string; message: string } {
  const allowed = ALLOWED[`${state ?? 'new'} ${keyOf(move)} ${role}`];
  if (role === 'stranger') return { code: 'NOT_FOUND', message: 'withdrawal not found' };
  if (allowed) return allowed;
  if (!MAY[role].includes(move.name)) return { code: 'FORBIDDEN', message: 'not allowed' };
  return { code: 'INVALID_STATE', message: `the withdrawal is ${state ?? 'not requested yet'}; it cannot be ${MOVE_DONE[move.name]}` };
}

const { actual, expected: listed } = everyCell(
  { state: STATES, move: MOVES, role: Object.keys(ACTORS) as Role[] },
  ({ state, move, role }) => {
    const planned = planWithdrawalMove({ id: WITHDRAWAL, user_id: OWNER, amount: '3000', status: state }, move, ACTORS[role], NOW);
    return isRefusal(planned) ? { code: planned.code, message: planned.message } : planned;
  },
  ({ state, move, role }) => expected(state, move, role),
);
const named = (cells: typeof actual) => cells.map(({ cell: { state, move, role }, outcome }) => ({ key: `${state ?? 'new'} ${keyOf(move)} ${role}`, outcome }));

describe('planning a withdrawal move', () => {
  it('covers every state, move and actor', () => {
    expect(actual).toHaveLength(8 * 15 * 5);
  });

  it('plans every cell as the listing expects', () => {
    expect(named(actual)).toEqual(named(listed));
  });

  it('allows exactly the listed cells', () => {
    const allowed = named(actual).filter(({ outcome }) => !('code' in outcome));
    expect(allowed.map(({ key }) => key).sort()).toEqual(Object.keys(ALLOWED).sort());
  });
});
