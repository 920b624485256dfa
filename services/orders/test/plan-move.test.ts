import { OrderStatus, SYSTEM_CONFIG_DEFAULTS } from '@market/contracts';
import { everyCell, isRefusal, planOrThrow } from '@market/shared/planning';
import type { Order } from '../src/domain/order';
import type { Actor, OrderState } from '../src/domain/order-state';
import { MOVE_TYPES, type DisputeRef, type Move, type MoveActor, type MovePlan, type MoveType } from '../src/domain/moves';
import { planMove } from '../src/domain/plan-move';
import { deadlineOf } from '../src/domain/timeouts';

const STATES = OrderStatus.options as OrderState[];
const ROLES: Actor[] = ['renter', 'owner', 'system', 'admin'];

const RENTER = '0193a000-0000-7000-8000-000000000001';
const OWNER = '0193a000-0000-7000-8000-000000000002';
const ADMIN = '0193a000-0000-7000-8000-000000000003';
const NEW_DISPUTE = '0193a000-0000-7000-8000-000000000004';
const RENEWAL = '0193a000-0000-7000-8000-000000000006';
const OPEN_DISPUTE: DisputeRef = { id: '0193a000-0000-7000-8000-000000000005', status: 'open', result: null };

/** the rental started at 09:00 for two hours; the order entered its state at 10:00; the move is asked at 12:00 */
const STARTED = new Date('2026-11-22T09:00:00.000Z');
const ENTERED = new Date('2026-11-22T10:00:00.000Z');
const NOW = new Date('2026-11-22T12:00:00.000Z');
const CONFIG = { settings: SYSTEM_CONFIG_DEFAULTS, minuteMs: 60_000 };

/** consumption 800 at the order's frozen 10 %: fee 80, the owner 720, the renter 6600 − 800 = 5800 */
const RENTERS_CHECKOUT = { consumption: 800, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 0, refund: 5800, owner_income: 720, platform_fee: 80, reason: null, evidence_keys: [] };

const RUNNING: OrderState[] = ['in_use', 'pending_checkout_confirm', 'pending_correction_confirm', 'completed', 'disputed', 'abnormal', 'closed'];
const CHECKED_OUT: OrderState[] = ['pending_checkout_confirm', 'pending_correction_confirm', 'completed'];

/** An order as it stands in `state`: 2 hours at 800, deposit 5000, paid (but for pending_payment) at a frozen 10 %. */
function orderIn(state: OrderState, over: Partial<Order> = {}): Order {
  const paid = state !== 'pending_payment';
  return {
    id: '0193a000-0000-7000-8000-0000000000aa',
    listing_id: '0193a000-0000-7000-8000-0000000000bb',
    listing_title: 'a game account',
    renter_id: RENTER,
    owner_id: OWNER,
    hours: 2,
    hourly_price: 800,
    rent: 1600,
    deposit: 5000,
    amount: 6600,
    status: state,
    paid_at: paid ? new Date('2026-11-22T08:00:00.000Z') : null,
    started_at: RUNNING.includes(state) ? STARTED : null,
    ends_at: RUNNING.includes(state) ? new Date('2026-11-22T11:00:00.000Z') : null,
    checkout: CHECKED_OUT.includes(state) ? RENTERS_CHECKOUT : null,
    dispute_id: state === 'disputed' ? OPEN_DISPUTE.id : null,
    status_changed_at: ENTERED,
    deadline_at: null,
    created_at: new Date('2026-11-22T07:00:00.000Z'),
    updated_at: ENTERED,
    charge_requested_at: null,
    charge_deadline_at: null,
    credentials_checked_at: null,
    marked_abnormal_by: null,
    fee_rate_bps: paid ? 1000 : null,
    overdue_alerted_at: null,
    version: 3,
    renewal_charge_id: null,
    ...over,
  };
}

const ACTOR_IDS: Record<Actor, string | null> = { renter: RENTER, owner: OWNER, system: null, admin: ADMIN };
const by = (role: Actor): MoveActor => ({ role, id: ACTOR_IDS[role] });

/** A well-formed ask of each move, as its use case would make it. */
function moveOf(type: MoveType, state: OrderState): Move {
  const openDispute = state === 'disputed' ? OPEN_DISPUTE : null;
  switch (type) {
    case 'pay':
      return { type, paidAt: NOW };
    case 'cancel':
      return { type, reason: 'changed my mind' };
    case 'hand_over':
      return { type, content: 'login: a / password: b', attachmentKeys: ['shot.png'] };
    case 'checkout':
      return { type, consumption: 800, reason: null };
    case 'counter_checkout':
      return { type, depositDeduction: 1000, reason: 'a scratched skin', evidenceKeys: ['scratch.png'] };
    case 'dispute':
    case 'reject_checkout':
      return { type, disputeId: NEW_DISPUTE, reason: 'the account was banned', evidenceKeys: [] };
    case 'timeout':
      return { type, openDispute };
    case 'arbitrate_complete':
    case 'arbitrate_close':
    case 'arbitrate_mark_abnormal':
      return { type, dispute: OPEN_DISPUTE, note: 'decided on the evidence', seen: { status: state, version: 3 } };
    case 'admin_close':
    case 'admin_mark_abnormal':
      return { type, openDispute, reason: 'fraud suspected', seen: { status: state, version: 3 } };
    case 'renew':
      return { type, renewalId: RENEWAL, hours: 3, rent: 2400 };
    default:
      return { type };
  }
}

/**
 * docs/rules.md §4 written out by hand, one line per (state, move): who may make it, where it leads, what
 * it publishes and which audit entries it writes ("-" for none). Independent of the state table on
 * purpose: every cell of planMove is checked against this. A disputed or abnormal order's deadline
 * here is the first one (the back office is alerted; the second is tested below). An unpaid order
 * here has no charge open; while one is, the back office's two moves from pending_payment are
 * refused (409 CHARGE_PENDING, the listing after this one).
 */
const EXPECTED = `
pending_payment             pay                      renter,system  pending_handoff             order.paid                           order.pay
pending_payment             cancel                   renter         cancelled                   order.cancelled                      order.cancel
pending_payment             timeout                  system         cancelled                   order.cancelled                      order.timeout
pending_payment             admin_close              admin          closed                      order.closed                         order.admin_close
pending_payment             admin_mark_abnormal      admin          abnormal                    order.marked_abnormal                order.admin_mark_abnormal
pending_handoff             cancel                   renter         cancelled                   order.cancelled                      order.cancel
pending_handoff             timeout                  system         cancelled                   order.cancelled                      order.timeout
pending_handoff             hand_over                owner,system   pending_receive             order.handed_off                     order.handoff
pending_handoff             admin_close              admin          closed                      order.closed                         order.admin_close
pending_handoff             admin_mark_abnormal      admin          abnormal                    order.marked_abnormal                order.admin_mark_abnormal
pending_receive             confirm_receive          renter         in_use                      order.received                       order.confirm_receive
pending_receive             timeout                  system         in_use                      order.received                       order.timeout
pending_receive             dispute                  renter,owner   disputed                    dispute.opened                       order.dispute
pending_receive             hand_over                renter,owner   pending_receive             -                                    order.note
pending_receive             admin_close              admin          closed                      order.closed                         order.admin_close
pending_receive             admin_mark_abnormal      admin          abnormal                    order.marked_abnormal                order.admin_mark_abnormal
in_use                      checkout                 renter         pending_checkout_confirm    order.checkout_requested             order.checkout
in_use                      timeout                  system         pending_checkout_confirm    order.checkout_requested             order.timeout
in_use                      dispute                  renter,owner   disputed                    dispute.opened                       order.dispute
in_use                      hand_over                renter,owner   in_use                      -                                    order.note
in_use                      renew                    renter,system  in_use                      order.renewed                        order.renew
in_use                      admin_close              admin          closed                      order.closed                         order.admin_close
in_use                      admin_mark_abnormal      admin          abnormal                    order.marked_abnormal                order.admin_mark_abnormal
pending_checkout_confirm    confirm_checkout         owner          completed                   order.completed                      order.confirm_checkout
pending_checkout_confirm    timeout                  system         completed                   order.completed                      order.timeout
pending_checkout_confirm    counter_checkout         owner          pending_correction_confirm  order.checkout_countered             order.counter_checkout
pending_checkout_confirm    dispute                  renter,owner   disputed                    dispute.opened                       order.dispute
pending_checkout_confirm    hand_over                renter,owner   pending_checkout_confirm    -                                    order.note
pending_checkout_confirm    admin_close              admin          closed                      order.closed                         order.admin_close
pending_checkout_confirm    admin_mark_abnormal      admin          abnormal                    order.marked_abnormal                order.admin_mark_abnormal
pending_correction_confirm  accept_checkout          renter         completed                   order.completed                      order.accept_checkout
pending_correction_confirm  timeout                  system         completed                   order.completed                      order.timeout
pending_correction_confirm  reject_checkout          renter         disputed                    dispute.opened                       order.reject_checkout
pending_correction_confirm  dispute                  renter,owner   disputed                    dispute.opened                       order.dispute
pending_correction_confirm  hand_over                renter,owner   pending_correction_confirm  -                                    order.note
pending_correction_confirm  admin_close              admin          closed                      order.closed                         order.admin_close
pending_correction_confirm  admin_mark_abnormal      admin          abnormal                    order.marked_abnormal                order.admin_mark_abnormal
disputed                    arbitrate_complete       admin          completed                   order.completed,dispute.resolved     order.arbitrate_complete,dispute.resolve
disputed                    arbitrate_close          admin          closed                      order.closed,dispute.resolved        order.arbitrate_close,dispute.resolve
disputed                    arbitrate_mark_abnormal  admin          abnormal                    order.marked_abnormal,dispute.resolved  order.arbitrate_mark_abnormal,dispute.resolve
disputed                    timeout                  system         disputed                    ops.alert                            order.overdue
disputed                    hand_over                renter,owner   disputed                    -                                    order.note
disputed                    admin_close              admin          closed                      order.closed,dispute.resolved        order.admin_close,dispute.resolve
disputed                    admin_mark_abnormal      admin          abnormal                    order.marked_abnormal,dispute.resolved  order.admin_mark_abnormal,dispute.resolve
abnormal                    timeout                  system         abnormal                    ops.alert                            order.overdue
abnormal                    admin_close              admin          closed                      order.closed                         order.admin_close
`;

/** pending_payment while the wallet's answer to a charge is unknown: the cells that differ from the listing above. */
const CHARGE_OPEN = `
pending_payment             admin_close              admin          CHARGE_PENDING
pending_payment             admin_mark_abnormal      admin          CHARGE_PENDING
`;
const chargeOpen = new Map(
  CHARGE_OPEN.trim()
    .split('\n')
    .map((line) => {
      const [from, move, role, refused] = line.trim().split(/\s+/);
      return [`${from} ${move} ${role}`, refused!];
    }),
);

/**
 * Who ever makes each move, from any state (docs/rules.md §4's actor column). A handoff record is the
 * handoff (the owner, or the system with stored credentials) while the order waits for one, and a
 * note of either party after.
 */
function madeBy(move: MoveType, state: OrderState): Actor[] {
  if (move === 'hand_over') return state === 'pending_handoff' ? ['owner', 'system'] : ['renter', 'owner'];
  const makers: Record<Exclude<MoveType, 'hand_over'>, Actor[]> = {
    pay: ['renter', 'system'],
    cancel: ['renter'],
    confirm_receive: ['renter'],
    checkout: ['renter'],
    counter_checkout: ['owner'],
    confirm_checkout: ['owner'],
    accept_checkout: ['renter'],
    dispute: ['renter', 'owner'],
    reject_checkout: ['renter'],
    timeout: ['system'],
    arbitrate_complete: ['admin'],
    arbitrate_close: ['admin'],
    arbitrate_mark_abnormal: ['admin'],
    admin_close: ['admin'],
    admin_mark_abnormal: ['admin'],
    renew: ['renter', 'system'],
  };
  return makers[move];
}

interface Expected {
  actors: Actor[];
  to: OrderState;
  events: string[];
  audits: string[];
}

const expected = new Map<string, Expected>(
  EXPECTED.trim()
    .split('\n')
    .map((line) => {
      const [from, move, actors, to, events, audits] = line.trim().split(/\s+/);
      const list = (s: string) => (s === '-' ? [] : s.split(','));
      return [`${from} ${move}`, { actors: list(actors!) as Actor[], to: to as OrderState, events: list(events!), audits: list(audits!) }];
    }),
);

/**
 * What `role`'s move from `state` must give: the hand-written outcome when the role is among its
 * makers here; otherwise 403 when the move is someone else's here or never the role's, 409 when the
 * role makes it, only not from this state.
 */
function expectedOutcome(state: OrderState, move: MoveType, role: Actor) {
  const cell = expected.get(`${state} ${move}`);
  if (cell?.actors.includes(role)) return { to: cell.to, events: cell.events, audits: cell.audits };
  return { refused: cell || !madeBy(move, state).includes(role) ? 'FORBIDDEN' : 'INVALID_STATE' };
}

function plan(order: Order, move: Move, role: Actor): MovePlan {
  return planOrThrow(planMove(order, move, by(role), NOW, CONFIG));
}

function refusal(order: Order, move: Move, role: Actor) {
  const outcome = planMove(order, move, by(role), NOW, CONFIG);
  if (!isRefusal(outcome)) throw new Error(`${move.type} by ${role} from ${order.status} was planned`);
  return { code: outcome.code, message: outcome.message, kind: outcome.kind, ...outcome.details };
}

describe('planMove', () => {
  it('decides every (state, move, actor) cell as docs/rules.md §4 says', () => {
    const planned = ({ state, move, role }: { state: OrderState; move: MoveType; role: Actor }) => planMove(orderIn(state), moveOf(move, state), by(role), NOW, CONFIG);
    const { actual, expected: listed } = everyCell(
      { state: STATES, move: MOVE_TYPES, role: ROLES },
      (cell): ReturnType<typeof expectedOutcome> => {
        const outcome = planned(cell);
        return isRefusal(outcome) ? { refused: outcome.code } : { to: outcome.to, events: outcome.events.map((e) => e.type), audits: outcome.audits.map((a) => a.action) };
      },
      ({ state, move, role }) => expectedOutcome(state, move, role),
    );
    expect(actual).toHaveLength(11 * 17 * 4);
    expect(expected.size).toBe(46);
    expect(actual).toEqual(listed);
    for (const { cell } of actual) {
      const outcome = planned(cell);
      if (isRefusal(outcome)) continue;
      const entered = outcome.to !== cell.state;
      expect({ cell, status: outcome.changes.status, since: outcome.changes.status_changed_at, at: outcome.changes.updated_at }).toEqual({
        cell,
        status: outcome.to,
        since: entered ? NOW : ENTERED,
        at: NOW,
      });
    }
  });

  it('refuses the back office’s end of an unpaid order while its charge is open, and nothing else of it', () => {
    const charging = orderIn('pending_payment', { charge_requested_at: ENTERED, charge_deadline_at: new Date(ENTERED.getTime() + 30_000) });
    for (const move of MOVE_TYPES) {
      for (const role of ROLES) {
        const outcome = planMove(charging, moveOf(move, 'pending_payment'), by(role), NOW, CONFIG);
        const got = isRefusal(outcome) ? { refused: outcome.code } : { to: outcome.to };
        const refused = chargeOpen.get(`pending_payment ${move} ${role}`);
        const { events: _events, audits: _audits, ...table } = expectedOutcome('pending_payment', move, role) as { to?: OrderState; refused?: string; events?: string[]; audits?: string[] };
        const cell = `pending_payment with a charge open: ${move} by ${role}`;
        expect({ cell, ...got }).toEqual({ cell, ...(refused ? { refused } : table) });
      }
    }
    expect(refusal(charging, moveOf('admin_mark_abnormal', 'pending_payment'), 'admin')).toMatchObject({ code: 'CHARGE_PENDING', kind: 'transient' });
  });

  it('renews: the end moves by the hours, the order holds the renewed totals, its deadline follows the new end', () => {
    const renewed = plan(orderIn('in_use', { renewal_charge_id: RENEWAL }), moveOf('renew', 'in_use'), 'renter');
    expect(renewed.changes).toMatchObject({
      status: 'in_use',
      ends_at: new Date('2026-11-22T14:00:00.000Z'),
      hours: 5,
      rent: 4000,
      amount: 9000,
      renewal_charge_id: null,
      deadline_at: new Date('2026-11-22T14:30:00.000Z'),
    });
    expect(renewed.events[0]).toEqual({
      type: 'order.renewed',
      data: expect.objectContaining({
        hours: 5,
        rent: 4000,
        amount: 9000,
        deposit: 5000,
        renewal_id: RENEWAL,
        added_hours: 3,
        added_rent: 2400,
        previous_ends_at: '2026-11-22T11:00:00.000Z',
        ends_at: '2026-11-22T14:00:00.000Z',
        actor_id: RENTER,
      }),
    });
  });

  it('while a renewal is being charged, refuses every other move of the order, and the recording of another renewal', () => {
    for (const state of STATES) {
      const charging = orderIn(state, { renewal_charge_id: RENEWAL });
      for (const move of MOVE_TYPES.filter((m) => m !== 'renew')) {
        for (const role of ROLES) {
          const outcome = planMove(charging, moveOf(move, state), by(role), NOW, CONFIG);
          expect({ state, move, role, refused: isRefusal(outcome) ? outcome.code : null }).toEqual({ state, move, role, refused: 'RENEWAL_PENDING' });
        }
      }
    }
    const other = { type: 'renew' as const, renewalId: NEW_DISPUTE, hours: 1, rent: 800 };
    expect(refusal(orderIn('in_use', { renewal_charge_id: RENEWAL }), other, 'system')).toMatchObject({ code: 'RENEWAL_PENDING', kind: 'transient' });
  });

  it('has a timed move exactly where an order has a deadline, so the scan never claims an order it cannot move', () => {
    for (const state of STATES) {
      for (const alerted of [null, ENTERED]) {
        const order = orderIn(state, { overdue_alerted_at: alerted });
        const timed = !isRefusal(planMove(order, { type: 'timeout', openDispute: null }, by('system'), NOW, CONFIG));
        expect({ state, alerted, timed }).toEqual({ state, alerted, timed: deadlineOf(order, CONFIG.settings, CONFIG.minuteMs) !== null });
      }
    }
  });

  it('names the refused move, a wrong state being a state that may still change', () => {
    expect(refusal(orderIn('pending_payment'), moveOf('pay', 'pending_payment'), 'owner')).toEqual({
      code: 'FORBIDDEN',
      message: 'the owner cannot pay',
      kind: 'permanent',
    });
    expect(refusal(orderIn('in_use'), moveOf('cancel', 'in_use'), 'renter')).toEqual({
      code: 'INVALID_STATE',
      message: 'order is in_use; cannot cancel',
      kind: 'transient',
    });
    expect(refusal(orderIn('completed'), moveOf('hand_over', 'completed'), 'owner').message).toBe('order is completed; cannot add a handoff note');
    expect(refusal(orderIn('pending_handoff'), moveOf('hand_over', 'pending_handoff'), 'renter').message).toBe('the renter cannot hand over');
  });

  it('pays: the charge time, the charge request cleared, the platform rate in force frozen, the handoff deadline', () => {
    const paid = plan(orderIn('pending_payment'), { type: 'pay', paidAt: new Date('2026-11-22T11:59:00.000Z') }, 'system');
    expect(paid.changes).toMatchObject({
      paid_at: new Date('2026-11-22T11:59:00.000Z'),
      charge_requested_at: null,
      charge_deadline_at: null,
      fee_rate_bps: 500,
      deadline_at: new Date('2026-11-22T12:30:00.000Z'),
    });
    expect(paid.events[0]!.data).toMatchObject({ status: 'pending_handoff', paid_at: '2026-11-22T11:59:00.000Z', reason: 'charge confirmed by the wallet', actor_id: null });
    expect(paid.audits[0]!.detail).toEqual({ from: 'pending_payment', to: 'pending_handoff', reason: 'charge confirmed by the wallet' });
    const byRenter = plan(orderIn('pending_payment'), { type: 'pay', paidAt: NOW }, 'renter');
    expect(byRenter.events[0]!.data).toMatchObject({ reason: null, actor_id: RENTER });
    expect(byRenter.audits[0]!.detail).toEqual({ from: 'pending_payment', to: 'pending_handoff' });
  });

  it('starts the rental clock on receipt, by the renter or by the deadline, and times the checkout grace from its end', () => {
    for (const role of ['renter', 'system'] as const) {
      const move: Move = role === 'renter' ? { type: 'confirm_receive' } : { type: 'timeout', openDispute: null };
      const received = plan(orderIn('pending_receive'), move, role);
      expect(received.changes).toMatchObject({
        started_at: NOW,
        ends_at: new Date('2026-11-22T14:00:00.000Z'),
        deadline_at: new Date('2026-11-22T14:30:00.000Z'),
      });
      expect(received.events[0]!.data).toMatchObject({ started_at: '2026-11-22T12:00:00.000Z', ends_at: '2026-11-22T14:00:00.000Z' });
      expect(received.events[0]!.data).toMatchObject({ reason: role === 'system' ? 'receipt confirmed automatically' : null });
    }
  });

  it('writes a handoff record in the name of who hands over; the stored credentials in the owner’s, by the system', () => {
    const bySystem = plan(orderIn('pending_handoff'), { type: 'hand_over', content: 'secret', attachmentKeys: [] }, 'system');
    expect(bySystem.trigger).toBe('handoff');
    expect(bySystem.handoffRecord).toEqual({ author_id: OWNER, author_role: 'owner', content: 'secret', attachment_keys: [], by_system: true, created_at: NOW });
    const note = plan(orderIn('in_use'), moveOf('hand_over', 'in_use'), 'renter');
    expect(note.trigger).toBe('note');
    expect(note.handoffRecord).toMatchObject({ author_id: RENTER, author_role: 'renter', attachment_keys: ['shot.png'], by_system: false });
    // a note keeps the state and its clock
    expect(note.changes).toMatchObject({ status: 'in_use', status_changed_at: ENTERED, deadline_at: new Date('2026-11-22T11:30:00.000Z') });
  });

  it.each<[OrderState, string]>([
    ['pending_receive', 'handoff'],
    ['in_use', 'usage'],
    ['pending_checkout_confirm', 'checkout'],
    ['pending_correction_confirm', 'checkout'],
  ])('opens a dispute from %s typed %s, names it on the order and tells both parties', (state, type) => {
    const opened = plan(orderIn(state), moveOf('dispute', state), 'owner');
    expect(opened.openDispute).toEqual({ id: NEW_DISPUTE, type, raised_by: OWNER, reason: 'the account was banned', evidence_keys: [], created_at: NOW });
    expect(opened.changes).toMatchObject({ dispute_id: NEW_DISPUTE, deadline_at: new Date('2026-11-25T12:00:00.000Z') });
    expect(opened.events).toEqual([
      {
        type: 'dispute.opened',
        data: { dispute_id: NEW_DISPUTE, order_id: orderIn(state).id, renter_id: RENTER, owner_id: OWNER, type, raised_by: OWNER, reason: 'the account was banned' },
      },
    ]);
  });

  it('settles checkouts: the renter’s proposal, the owner’s correction, or a refusal naming the field', () => {
    const proposed = plan(orderIn('in_use'), { type: 'checkout', reason: null }, 'renter');
    // three hours since the start, capped at the rent of two; an hour past the end (ADR 0071): 60 started minutes
    // less the 5 free, 55 × 800 / 60 = 733 fen of overtime from the deposit, the fee at 10 % of 2 333
    expect(proposed.changes.checkout).toEqual({
      consumption: 1600,
      overtime_minutes: 55,
      overtime_fee: 733,
      deposit_deduction: 0,
      refund: 4267,
      owner_income: 2100,
      platform_fee: 233,
      reason: null,
      evidence_keys: [],
    });
    const countered = plan(orderIn('pending_checkout_confirm'), moveOf('counter_checkout', 'pending_checkout_confirm'), 'owner');
    expect(countered.changes.checkout).toEqual({
      consumption: 800,
      overtime_minutes: 0,
      overtime_fee: 0,
      deposit_deduction: 1000,
      refund: 4800,
      owner_income: 1720,
      platform_fee: 80,
      reason: 'a scratched skin',
      evidence_keys: ['scratch.png'],
    });
    expect(countered.events[0]!.data).toMatchObject({ consumption: 800, deposit_deduction: 1000, refund: 4800, owner_income: 1720, platform_fee: 80 });
    expect(refusal(orderIn('in_use'), { type: 'checkout', consumption: 1601, reason: null }, 'renter')).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'request failed validation',
      kind: 'permanent',
      errors: [{ path: 'consumption', message: 'must not exceed the rent paid (1600)' }],
    });
    expect(refusal(orderIn('pending_checkout_confirm', { checkout: null }), { type: 'confirm_checkout' }, 'owner')).toMatchObject({
      code: 'INVALID_STATE',
      message: 'order has no checkout to settle',
    });
    const confirmed = plan(orderIn('pending_checkout_confirm'), { type: 'confirm_checkout' }, 'owner');
    expect(confirmed.changes.checkout).toBeUndefined();
    expect(confirmed.events[0]!.data).toMatchObject({ status: 'completed', consumption: 800, owner_income: 720, platform_fee: 80, refund: 5800 });
  });

  it('times out each state with its own default', () => {
    const timeout: Move = { type: 'timeout', openDispute: null };
    expect(plan(orderIn('pending_payment'), timeout, 'system').audits[0]!.detail).toEqual({ from: 'pending_payment', to: 'cancelled', reason: 'payment timeout' });
    expect(plan(orderIn('pending_handoff'), timeout, 'system').audits[0]!.detail).toEqual({ from: 'pending_handoff', to: 'cancelled', reason: 'handoff timeout' });
    const ended = plan(orderIn('in_use'), timeout, 'system');
    // ADR 0071: the automatic checkout also charges the overtime up to its deadline (ends 11:00, deadline 11:30,
    // the scan at 12:00): 30 minutes less the 5 free, 25 × 800 / 60 = 333 fen, the fee at 10 % of 1 933
    expect(ended.changes.checkout).toEqual({
      consumption: 1600,
      overtime_minutes: 25,
      overtime_fee: 333,
      deposit_deduction: 0,
      refund: 4667,
      owner_income: 1740,
      platform_fee: 193,
      reason: null,
      evidence_keys: [],
    });
    expect(ended.audits[0]!.detail).toMatchObject({ reason: 'rental ended' });
    expect(plan(orderIn('pending_checkout_confirm'), timeout, 'system').events[0]!.data).toMatchObject({
      consumption: 800,
      reason: 'checkout confirmed automatically',
    });
    // a proposal of nothing after an hour of use completes at the hour used
    const low = plan(orderIn('pending_checkout_confirm', { checkout: { ...RENTERS_CHECKOUT, consumption: 0, refund: 6600, owner_income: 0, platform_fee: 0 } }), timeout, 'system');
    expect(low.changes.checkout).toMatchObject({ consumption: 800, owner_income: 720, platform_fee: 80 });
    expect(low.events[0]!.data).toMatchObject({ reason: 'checkout completed automatically at the time used' });
    const corrected = plan(orderIn('pending_correction_confirm'), timeout, 'system');
    expect(corrected.changes.checkout).toEqual(RENTERS_CHECKOUT);
    expect(corrected.events[0]!.data).toMatchObject({ reason: 'correction accepted automatically' });
  });

  it('alerts the back office at a disputed order’s first deadline, and closes it at the second with the time used', () => {
    const alerted = plan(orderIn('disputed'), { type: 'timeout', openDispute: OPEN_DISPUTE }, 'system');
    expect(alerted.trigger).toBe('overdue');
    expect(alerted.changes).toMatchObject({ status: 'disputed', overdue_alerted_at: NOW, deadline_at: new Date('2026-11-28T10:00:00.000Z') });
    expect(alerted.audits).toEqual([
      {
        action: 'order.overdue',
        biz_type: 'order',
        biz_id: orderIn('disputed').id,
        detail: { status: 'disputed', since: '2026-11-22T10:00:00.000Z', default_resolution_at: '2026-11-28T10:00:00.000Z' },
        result: 'failure',
      },
    ]);
    expect(alerted.events[0]!.data).toMatchObject({ alert: 'ORDER_OVERDUE', subject_id: orderIn('disputed').id, raised_at: NOW.toISOString() });
    expect(alerted.resolveDispute).toBeNull();

    const reason = 'no decision within the disputed deadline: the time used at the listed price, no deduction';
    const closed = plan(orderIn('disputed', { overdue_alerted_at: NOW }), { type: 'timeout', openDispute: OPEN_DISPUTE }, 'system');
    expect(closed.to).toBe('closed');
    expect(closed.changes).toMatchObject({ overdue_alerted_at: null, deadline_at: null });
    expect(closed.changes.checkout).toEqual({ consumption: 800, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 0, refund: 5800, owner_income: 720, platform_fee: 80, reason, evidence_keys: [] });
    expect(closed.resolveDispute).toEqual({ id: OPEN_DISPUTE.id, result: 'close', note: reason, at: NOW });
    expect(closed.events.map((e) => e.type)).toEqual(['order.closed', 'dispute.resolved']);
    expect(closed.events[1]!.data).toMatchObject({ result: 'close', resolved_by: null, breakdown: { consumption: 800, refund: 5800, owner_income: 720, platform_fee: 80, deposit_deduction: 0 } });
    expect(closed.audits.map((a) => a.action)).toEqual(['order.timeout', 'dispute.resolve']);

    // unpaid and abnormal: nothing to pay out, nothing stored as paid out, no dispute to resolve
    const unpaid = plan(orderIn('abnormal', { overdue_alerted_at: NOW, paid_at: null }), { type: 'timeout', openDispute: null }, 'system');
    expect(unpaid.changes.checkout).toBeUndefined();
    expect(unpaid.events.map((e) => e.type)).toEqual(['order.closed']);
    expect(unpaid.events[0]!.data).toMatchObject({ consumption: 0, refund: 6600, owner_income: 0, platform_fee: 0 });
  });

  it('decides an admin’s move on the order as the admin saw it, and splits only a paid order validly', () => {
    const close = { type: 'admin_close' as const, openDispute: null, reason: 'fraud suspected', seen: { status: 'in_use' as const, version: 3 } };
    // another move committed between the request's read and its lock: a new version, whatever the clocks said
    expect(refusal(orderIn('in_use', { version: 4 }), close, 'admin')).toEqual({
      code: 'ORDER_CHANGED',
      message: 'the order changed (it is in_use now) while this decision waited; look at it again',
      kind: 'transient',
    });
    expect(refusal(orderIn('closed', { version: 4 }), close, 'admin')).toMatchObject({ code: 'ORDER_CHANGED' });
    expect(refusal(orderIn('in_use'), { ...close, expectedStatus: 'disputed' }, 'admin')).toMatchObject({
      code: 'ORDER_CHANGED',
      message: 'the order is in_use, not disputed; look at it again',
    });
    const unpaidClose = { ...close, seen: { status: 'pending_payment' as const, version: 3 } };
    expect(refusal(orderIn('pending_payment'), { ...unpaidClose, breakdown: { consumption: 0, deposit_deduction: 0 } }, 'admin')).toMatchObject({
      code: 'INVALID_STATE',
      message: 'the order was never paid; there is nothing to split',
    });
    expect(refusal(orderIn('in_use'), { ...close, breakdown: { consumption: 1601, deposit_deduction: 0 } }, 'admin')).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'breakdown.consumption', message: 'must not exceed the rent paid (1600)' }],
    });
    const refunded = plan(orderIn('in_use'), close, 'admin');
    expect(refunded.changes.checkout).toEqual({ consumption: 0, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 0, refund: 6600, owner_income: 0, platform_fee: 0, reason: 'fraud suspected', evidence_keys: [] });
    expect(refunded.events[0]!.data).toMatchObject({ reason: 'fraud suspected', actor_id: ADMIN, refund: 6600 });
    // an unpaid order closes with the figures on the event only; marking abnormal holds the escrow
    expect(plan(orderIn('pending_payment'), unpaidClose, 'admin').changes.checkout).toBeUndefined();
    const held = plan(orderIn('disputed'), { ...close, type: 'admin_mark_abnormal', openDispute: OPEN_DISPUTE, seen: { status: 'disputed', version: 3 } }, 'admin');
    expect(held.changes.checkout).toBeUndefined();
    expect(held.resolveDispute).toEqual({ id: OPEN_DISPUTE.id, result: 'mark_abnormal', note: 'fraud suspected', at: NOW });
    expect(held.events[1]!.data).toMatchObject({ resolved_by: ADMIN, breakdown: null });
    // who marked it abnormal is recorded: that admin may not approve a reveal of it (ADR 0056)
    expect(held.changes.marked_abnormal_by).toBe(ADMIN);
    expect(refunded.changes.marked_abnormal_by).toBeUndefined();
  });

  it('arbitrates only an open dispute, settling by the breakdown, the parties’ figures or the full rent', () => {
    const decided = { ...OPEN_DISPUTE, status: 'resolved' as const, result: 'close' as const };
    // refused for the dispute first, whatever the order's state now
    expect(refusal(orderIn('closed'), { type: 'arbitrate_complete', dispute: decided, note: 'again', seen: { status: 'disputed', version: 3 } }, 'admin')).toMatchObject({
      code: 'INVALID_STATE',
      message: 'dispute is resolved (close); cannot arbitrate',
    });
    const complete = { type: 'arbitrate_complete' as const, dispute: OPEN_DISPUTE, note: 'decided', seen: { status: 'disputed' as const, version: 3 } };
    expect(plan(orderIn('disputed', { checkout: RENTERS_CHECKOUT }), complete, 'admin').changes.checkout).toEqual({ ...RENTERS_CHECKOUT, reason: 'decided' });
    expect(plan(orderIn('disputed', { checkout: null }), complete, 'admin').changes.checkout).toMatchObject({ consumption: 1600, platform_fee: 160 });
    const split = plan(orderIn('disputed'), { ...complete, type: 'arbitrate_close', breakdown: { consumption: 400, deposit_deduction: 200 } }, 'admin');
    expect(split.changes.checkout).toEqual({ consumption: 400, overtime_minutes: 0, overtime_fee: 0, deposit_deduction: 200, refund: 6000, owner_income: 560, platform_fee: 40, reason: 'decided', evidence_keys: [] });
    expect(split.resolveDispute).toEqual({ id: OPEN_DISPUTE.id, result: 'close', note: 'decided', at: NOW });
  });
});
