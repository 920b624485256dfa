import { everyCell, isRefusal } from '@market/shared/planning';
import { MOVE_DONE, planRefundMove, type RefundActor, type RefundMove, type RefundPlan } from '../src/domain/plan-refund-move';
import type { RefundState } from '../src/domain/refund';

const OWNER = '0193a1b2-0000-7000-8000-00000000000a';
const OTHER = '0193a1b2-0000-7000-8000-00000000000b';
const ADMIN = '0193a1b2-0000-7000-8000-00000000000c';
const REFUND = '0193a1b2-0000-7000-8000-0000000000ff';
const NOW = new Date('2026-11-25T10:00:00Z');
const REFUNDED_AT = new Date('2026-11-25T09:59:00Z');

// Every state a refund can be in; null is one being opened, not stored yet.
const STATES: Array<RefundState | null> = [null, 'requested', 'approved', 'processing', 'refunded', 'failed', 'rejected'];

const MOVES: RefundMove[] = [
  { name: 'request' },
  { name: 'start' },
  { name: 'approve' },
  { name: 'reject', reason: 'spent on an order' },
  { name: 'send' },
  { name: 'refund_succeeded', refundedAt: REFUNDED_AT, providerRefundId: 'R-1' },
  { name: 'refund_failed', reason: 'TRADE_HAS_CLOSE' },
  { name: 'refund_unknown' },
  { name: 'refund_not_found' },
];

const ACTORS: Record<'owner' | 'stranger' | 'admin' | 'system' | 'provider', RefundActor> = {
  owner: { kind: 'user', id: OWNER },
  stranger: { kind: 'user', id: OTHER },
  admin: { kind: 'admin', id: ADMIN },
  system: { kind: 'system' },
  provider: { kind: 'provider' },
};
type Role = keyof typeof ACTORS;

/*
 * What each allowed (state, move, actor) does, written out from ADR 0050 and the API's description of
 * refunds, not from the table under test.
 */
const ALLOWED: Record<string, RefundPlan> = {
  // nothing is held while the request waits for review
  'new request owner': { next: 'requested', stamps: {}, effects: [{ kind: 'event', type: 'refund.requested' }] },
  'new start admin': {
    next: 'approved',
    stamps: { decided_at: NOW, decided_by: ADMIN, next_check_at: NOW },
    effects: [
      { kind: 'hold', transfer: 'take' },
      { kind: 'audit', action: 'refund.start', detail: { amount: 3_000, user_id: OWNER } },
      { kind: 'send_refund' },
    ],
  },
  'requested approve admin': {
    next: 'approved',
    stamps: { decided_at: NOW, decided_by: ADMIN, next_check_at: NOW },
    effects: [
      { kind: 'hold', transfer: 'take' },
      { kind: 'audit', action: 'refund.approve', detail: { amount: 3_000, user_id: OWNER } },
      { kind: 'send_refund' },
    ],
  },
  'requested reject admin': {
    next: 'rejected',
    stamps: { decided_at: NOW, decided_by: ADMIN, reason: 'spent on an order', finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'event', type: 'refund.rejected' },
      { kind: 'audit', action: 'refund.reject', detail: { amount: 3_000, user_id: OWNER, reason: 'spent on an order' } },
    ],
  },
  // the first ask leaves only after this is committed: from then on the outcome is asked about
  'approved send system': { next: 'processing', stamps: { sent_at: NOW }, effects: [] },
  'processing refund_succeeded provider': {
    next: 'refunded',
    stamps: { refunded_at: REFUNDED_AT, provider_refund_id: 'R-1', finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'pay_out' },
      { kind: 'event', type: 'refund.refunded' },
    ],
  },
  'processing refund_failed provider': {
    next: 'failed',
    stamps: { reason: 'TRADE_HAS_CLOSE', finished_at: NOW, next_check_at: null },
    effects: [
      { kind: 'hold', transfer: 'release' },
      { kind: 'event', type: 'refund.failed' },
    ],
  },
  // the provider cannot say yet: nothing changes, the hold stays, the refund is asked about again later
  'processing refund_unknown provider': { next: 'processing', stamps: {}, effects: [] },
  // the provider never received it: sent again under the same id, which it refunds once at most
  'processing refund_not_found provider': { next: 'processing', stamps: {}, effects: [{ kind: 'send_refund' }] },
};

/** The moves each actor may make at all; any other move of theirs is forbidden whatever the state. */
const MAY: Record<Role, string[]> = {
  owner: ['request'],
  stranger: [],
  admin: ['start', 'approve', 'reject'],
  system: ['send'],
  provider: ['refund_succeeded', 'refund_failed', 'refund_unknown', 'refund_not_found'],
};

function expected(state: RefundState | null, move: RefundMove, role: Role): RefundPlan | { code: string; message: string } {
  const allowed = ALLOWED[`${state ?? 'new'} ${move.name} ${role}`];
  if (role === 'stranger') return { code: 'NOT_FOUND', message: 'refund not found' };
  if (allowed) return allowed;
  if (!MAY[role].includes(move.name)) return { code: 'FORBIDDEN', message: 'not allowed' };
  return { code: 'INVALID_STATE', message: `the refund is ${state ?? 'not requested yet'}; it cannot be ${MOVE_DONE[move.name]}` };
}

const { actual, expected: listed } = everyCell(
  { state: STATES, move: MOVES, role: Object.keys(ACTORS) as Role[] },
  ({ state, move, role }) => {
    const planned = planRefundMove({ id: REFUND, user_id: OWNER, amount: '3000', status: state }, move, ACTORS[role], NOW);
    return isRefusal(planned) ? { code: planned.code, message: planned.message } : planned;
  },
  ({ state, move, role }) => expected(state, move, role),
);
const named = (cells: typeof actual) => cells.map(({ cell: { state, move, role }, outcome }) => ({ key: `${state ?? 'new'} ${move.name} ${role}`, outcome }));

describe('planning a refund move', () => {
  it('covers every state, move and actor', () => {
    expect(actual).toHaveLength(7 * 9 * 5);
  });

  it('plans every cell as the listing expects', () => {
    expect(named(actual)).toEqual(named(listed));
  });

  it('allows exactly the listed cells', () => {
    const allowed = named(actual).filter(({ outcome }) => !('code' in outcome));
    expect(allowed.map(({ key }) => key).sort()).toEqual(Object.keys(ALLOWED).sort());
  });
});
