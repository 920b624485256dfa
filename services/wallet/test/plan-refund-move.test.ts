import { MOVE_DONE, planRefundMove, type RefundMove, type RefundPlan } from '../src/domain/plan-refund-move';
import type { MoneyMoveRole } from '../src/domain/money-move-table';
import type { RefundState } from '../src/domain/refund';
import { ADMIN, describeMoneyMoveTable, NOW, OWNER, settled } from './money-move-listing';

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

/** Finance's approval, of a refund it opens or of a request: the amount held, the decision audited and the refund sent once committed. */
const approvedBy = (action: 'refund.start' | 'refund.approve'): RefundPlan => ({
  next: 'approved',
  stamps: { decided_at: NOW, decided_by: ADMIN, next_check_at: NOW },
  effects: [{ kind: 'hold', transfer: 'take' }, { kind: 'audit', action, detail: { amount: 3_000, user_id: OWNER } }, { kind: 'send_refund' }],
});

/*
 * What each allowed (state, move, actor) does, written out from ADR 0050 and the API's description of
 * refunds, not from the table under test.
 */
const ALLOWED: Record<string, RefundPlan> = {
  // nothing is held while the request waits for review
  'new request owner': { next: 'requested', stamps: {}, effects: [{ kind: 'event', type: 'refund.requested' }] },
  'new start admin': approvedBy('refund.start'),
  'requested approve admin': approvedBy('refund.approve'),
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
  'processing refund_succeeded provider': settled('refunded', { refunded_at: REFUNDED_AT, provider_refund_id: 'R-1', finished_at: NOW, next_check_at: null }, 'pay_out', 'refund.refunded'),
  'processing refund_failed provider': settled('failed', { reason: 'TRADE_HAS_CLOSE', finished_at: NOW, next_check_at: null }, 'release', 'refund.failed'),
  // the provider cannot say yet: nothing changes, the hold stays, the refund is asked about again later
  'processing refund_unknown provider': { next: 'processing', stamps: {}, effects: [] },
  // the provider never received it: sent again under the same id, which it refunds once at most
  'processing refund_not_found provider': { next: 'processing', stamps: {}, effects: [{ kind: 'send_refund' }] },
};

/** The moves each actor may make at all; any other move of theirs is forbidden whatever the state. */
const MAY: Record<MoneyMoveRole, string[]> = {
  owner: ['request'],
  stranger: [],
  admin: ['start', 'approve', 'reject'],
  system: ['send'],
  provider: ['refund_succeeded', 'refund_failed', 'refund_unknown', 'refund_not_found'],
};

describeMoneyMoveTable('planning a refund move', { noun: 'refund', planner: planRefundMove, states: STATES, moves: MOVES, cells: 7 * 9 * 5, allowed: ALLOWED, may: MAY, moveDone: MOVE_DONE });
