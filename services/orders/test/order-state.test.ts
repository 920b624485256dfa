import { OrderStatus } from '@market/contracts';
import { decideMove, isActive, ORDER_TRANSITIONS, ORDER_TRIGGERS, type Actor, type OrderState, type OrderTrigger } from '../src/domain/order-state';
import { SYSTEM_CONFIG_DEFAULTS as DEFAULT_SETTINGS } from '@market/contracts';
import { deadlineOf, statesTimedBy, TIMED_STATES } from '../src/domain/timeouts';

const STATES = OrderStatus.options as OrderState[];
const ACTORS: Actor[] = ['renter', 'owner', 'system', 'admin'];

/**
 * CONTRACT §4 written out by hand, one line per (state, trigger): who may make the move, where it
 * leads and what it publishes ("-" for nothing). Independent of ORDER_TRANSITIONS on purpose: the
 * test below checks the table against this, cell by cell.
 */
const EXPECTED_MOVES = `
pending_payment             pay                      renter,system  pending_handoff             order.paid
pending_payment             cancel                   renter         cancelled                   order.cancelled
pending_payment             timeout                  system         cancelled                   order.cancelled
pending_payment             admin_close              admin          closed                      order.closed
pending_payment             admin_mark_abnormal      admin          abnormal                    order.marked_abnormal
pending_handoff             cancel                   renter         cancelled                   order.cancelled
pending_handoff             timeout                  system         cancelled                   order.cancelled
pending_handoff             handoff                  owner,system   pending_receive             order.handed_off
pending_handoff             admin_close              admin          closed                      order.closed
pending_handoff             admin_mark_abnormal      admin          abnormal                    order.marked_abnormal
pending_receive             confirm_receive          renter         in_use                      order.received
pending_receive             timeout                  system         in_use                      order.received
pending_receive             dispute                  renter,owner   disputed                    dispute.opened
pending_receive             note                     renter,owner   pending_receive             -
pending_receive             admin_close              admin          closed                      order.closed
pending_receive             admin_mark_abnormal      admin          abnormal                    order.marked_abnormal
in_use                      checkout                 renter         pending_checkout_confirm    order.checkout_requested
in_use                      timeout                  system         pending_checkout_confirm    order.checkout_requested
in_use                      dispute                  renter,owner   disputed                    dispute.opened
in_use                      note                     renter,owner   in_use                      -
in_use                      admin_close              admin          closed                      order.closed
in_use                      admin_mark_abnormal      admin          abnormal                    order.marked_abnormal
pending_checkout_confirm    confirm_checkout         owner          completed                   order.completed
pending_checkout_confirm    timeout                  system         completed                   order.completed
pending_checkout_confirm    counter_checkout         owner          pending_correction_confirm  order.checkout_countered
pending_checkout_confirm    dispute                  renter,owner   disputed                    dispute.opened
pending_checkout_confirm    note                     renter,owner   pending_checkout_confirm    -
pending_checkout_confirm    admin_close              admin          closed                      order.closed
pending_checkout_confirm    admin_mark_abnormal      admin          abnormal                    order.marked_abnormal
pending_correction_confirm  accept_checkout          renter         completed                   order.completed
pending_correction_confirm  timeout                  system         completed                   order.completed
pending_correction_confirm  reject_checkout          renter         disputed                    dispute.opened
pending_correction_confirm  dispute                  renter,owner   disputed                    dispute.opened
pending_correction_confirm  note                     renter,owner   pending_correction_confirm  -
pending_correction_confirm  admin_close              admin          closed                      order.closed
pending_correction_confirm  admin_mark_abnormal      admin          abnormal                    order.marked_abnormal
disputed                    arbitrate_complete       admin          completed                   order.completed
disputed                    arbitrate_close          admin          closed                      order.closed
disputed                    arbitrate_mark_abnormal  admin          abnormal                    order.marked_abnormal
disputed                    timeout                  system         closed                      order.closed
disputed                    note                     renter,owner   disputed                    -
disputed                    admin_close              admin          closed                      order.closed
disputed                    admin_mark_abnormal      admin          abnormal                    order.marked_abnormal
abnormal                    timeout                  system         closed                      order.closed
abnormal                    admin_close              admin          closed                      order.closed
`;

/** Who ever makes each trigger, from any state (CONTRACT §4's actor column). */
const MADE_BY: Record<OrderTrigger, Actor[]> = {
  pay: ['renter', 'system'],
  cancel: ['renter'],
  handoff: ['owner', 'system'],
  note: ['renter', 'owner'],
  confirm_receive: ['renter'],
  checkout: ['renter'],
  confirm_checkout: ['owner'],
  counter_checkout: ['owner'],
  accept_checkout: ['renter'],
  reject_checkout: ['renter'],
  dispute: ['renter', 'owner'],
  timeout: ['system'],
  arbitrate_complete: ['admin'],
  arbitrate_close: ['admin'],
  arbitrate_mark_abnormal: ['admin'],
  admin_close: ['admin'],
  admin_mark_abnormal: ['admin'],
};

interface ExpectedMove {
  actors: Actor[];
  to: OrderState;
  event: string | null;
}

const expectedMoves = new Map<string, ExpectedMove>(
  EXPECTED_MOVES.trim()
    .split('\n')
    .map((line) => {
      const [from, trigger, actors, to, event] = line.trim().split(/\s+/);
      return [`${from}/${trigger}`, { actors: actors.split(',') as Actor[], to: to as OrderState, event: event === '-' ? null : event }];
    }),
);

/**
 * What `actor`'s `trigger` from `state` must give: the hand-written move when the actor is among its
 * makers; otherwise `forbidden` when the move exists here for someone else or the actor never makes
 * this trigger (403), `invalid_state` when the actor makes it, only not from here (409).
 */
function expectedDecision(state: OrderState, trigger: OrderTrigger, actor: Actor) {
  const move = expectedMoves.get(`${state}/${trigger}`);
  if (move?.actors.includes(actor)) return { ok: true, to: move.to, event: move.event };
  return { ok: false, refusal: move || !MADE_BY[trigger].includes(actor) ? 'forbidden' : 'invalid_state' };
}

describe('the order state table', () => {
  it('decides every (state, trigger, actor) cell as CONTRACT §4 says', () => {
    const cells = STATES.flatMap((state) => ORDER_TRIGGERS.flatMap((trigger) => ACTORS.map((actor) => ({ state, trigger, actor }))));
    expect(cells).toHaveLength(11 * 17 * 4);
    for (const { state, trigger, actor } of cells) {
      const decision = decideMove(state, trigger, actor);
      const got = decision.ok ? { ok: true, to: decision.transition.to, event: decision.transition.event } : decision;
      expect({ cell: `${state} ${trigger} by ${actor}`, ...got }).toEqual({ cell: `${state} ${trigger} by ${actor}`, ...expectedDecision(state, trigger, actor) });
    }
  });

  it('has each (state, trigger) once, and no row the contract lacks', () => {
    const keys = ORDER_TRANSITIONS.map((t) => `${t.from}/${t.trigger}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual([...expectedMoves.keys()].sort());
  });

  it('times out exactly the states that have a threshold, as the system only', () => {
    for (const state of STATES) {
      expect(decideMove(state, 'timeout', 'system').ok).toBe(TIMED_STATES[state] !== undefined);
    }
  });

  it('reaches every state from pending_payment and counts only unfinished ones as active', () => {
    const reached = new Set<OrderState>(['pending_payment']);
    const queue: OrderState[] = ['pending_payment'];
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const t of ORDER_TRANSITIONS.filter((r) => r.from === from)) {
        if (!reached.has(t.to)) {
          reached.add(t.to);
          queue.push(t.to);
        }
      }
    }
    expect([...reached].sort()).toEqual([...STATES].sort());
    expect(STATES.filter(isActive).sort()).toEqual(
      ['pending_payment', 'pending_handoff', 'pending_receive', 'in_use', 'pending_checkout_confirm', 'pending_correction_confirm', 'disputed', 'abnormal'].sort(),
    );
    expect(STATES.filter((s) => !isActive(s)).sort()).toEqual(['cancelled', 'closed', 'completed']);
  });
});

describe('deadlines', () => {
  const entered = new Date('2026-11-22T10:00:00.000Z');

  it('count from entering the state, or from the end of the rental while in use', () => {
    expect(deadlineOf({ status: 'pending_payment', status_changed_at: entered, ends_at: null }, DEFAULT_SETTINGS, 60_000)?.toISOString()).toBe(
      '2026-11-22T10:15:00.000Z',
    );
    const endsAt = new Date('2026-11-22T13:00:00.000Z');
    expect(deadlineOf({ status: 'in_use', status_changed_at: entered, ends_at: endsAt }, DEFAULT_SETTINGS, 60_000)?.toISOString()).toBe(
      '2026-11-22T13:30:00.000Z',
    );
    // disputed and abnormal (ADR 0029): hours; the first deadline alerts, the second (twice) resolves
    expect(deadlineOf({ status: 'disputed', status_changed_at: entered, ends_at: endsAt }, DEFAULT_SETTINGS, 60_000)?.toISOString()).toBe(
      '2026-11-25T10:00:00.000Z',
    );
    expect(
      deadlineOf({ status: 'abnormal', status_changed_at: entered, ends_at: null, overdue_alerted_at: entered }, DEFAULT_SETTINGS, 60_000)?.toISOString(),
    ).toBe('2026-12-06T10:00:00.000Z');
    expect(deadlineOf({ status: 'completed', status_changed_at: entered, ends_at: endsAt }, DEFAULT_SETTINGS, 60_000)).toBeNull();
  });

  it('follow the configured threshold and the length of a minute', () => {
    const settings = { ...DEFAULT_SETTINGS, 'order.receive_timeout_minutes': 2 };
    expect(deadlineOf({ status: 'pending_receive', status_changed_at: entered, ends_at: null }, settings, 1000)?.toISOString()).toBe(
      '2026-11-22T10:00:02.000Z',
    );
    expect(statesTimedBy('order.receive_timeout_minutes')).toEqual(['pending_receive']);
    expect(statesTimedBy('platform.commission_rate_bps')).toEqual([]);
  });
});
