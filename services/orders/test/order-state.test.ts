import { OrderStatus } from '@market/contracts';
import {
  ACTIVE_STATES,
  decideMove,
  isActive,
  ORDER_TRANSITIONS,
  ORDER_TRIGGERS,
  TERMINAL_STATES,
  type Actor,
  type OrderState,
} from '../src/domain/order-state';
import { SYSTEM_CONFIG_DEFAULTS as DEFAULT_SETTINGS } from '@market/contracts';
import { deadlineOf, statesTimedBy, TIMED_STATES } from '../src/domain/timeouts';

const STATES = OrderStatus.options as OrderState[];
const ACTORS: Actor[] = ['renter', 'owner', 'system', 'admin'];

describe('the order state table', () => {
  it('has the rows of CONTRACT §4, each (state, trigger) once', () => {
    const seen = new Set<string>();
    for (const t of ORDER_TRANSITIONS) {
      const key = `${t.from}/${t.trigger}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    const row = (from: OrderState, trigger: string) => ORDER_TRANSITIONS.find((t) => t.from === from && t.trigger === trigger);
    // the system records a payment the charge reconciler found (ADR 0028)
    expect(row('pending_payment', 'pay')).toMatchObject({ actors: ['renter', 'system'], to: 'pending_handoff', event: 'order.paid' });
    expect(row('pending_handoff', 'handoff')).toMatchObject({ actors: ['owner', 'system'], to: 'pending_receive' });
    expect(row('pending_correction_confirm', 'reject_checkout')).toMatchObject({ to: 'disputed', event: 'dispute.opened' });
    expect(row('abnormal', 'admin_close')).toMatchObject({ to: 'closed', event: 'order.closed' });
    expect(row('abnormal', 'admin_mark_abnormal')).toBeUndefined();
  });

  it('never moves a terminal order', () => {
    for (const state of TERMINAL_STATES) {
      for (const trigger of ORDER_TRIGGERS) {
        for (const actor of ACTORS) expect(decideMove(state, trigger, actor).ok).toBe(false);
      }
    }
  });

  it('times out exactly the states that have a threshold, as the system only', () => {
    for (const state of STATES) {
      expect(decideMove(state, 'timeout', 'system').ok).toBe(TIMED_STATES[state] !== undefined);
      for (const actor of ['renter', 'owner', 'admin'] as const) expect(decideMove(state, 'timeout', actor)).toEqual({ ok: false, refusal: 'forbidden' });
    }
  });

  it("refuses another party's move with forbidden and a wrong state with invalid_state", () => {
    expect(decideMove('pending_payment', 'pay', 'owner')).toEqual({ ok: false, refusal: 'forbidden' });
    expect(decideMove('pending_handoff', 'handoff', 'renter')).toEqual({ ok: false, refusal: 'forbidden' });
    expect(decideMove('pending_checkout_confirm', 'confirm_checkout', 'renter')).toEqual({ ok: false, refusal: 'forbidden' });
    expect(decideMove('in_use', 'cancel', 'renter')).toEqual({ ok: false, refusal: 'invalid_state' });
    expect(decideMove('completed', 'pay', 'renter')).toEqual({ ok: false, refusal: 'invalid_state' });
    expect(decideMove('pending_payment', 'confirm_checkout', 'owner')).toEqual({ ok: false, refusal: 'invalid_state' });
  });

  it('lets every allowed (state, trigger, actor) through to the row’s target', () => {
    for (const t of ORDER_TRANSITIONS) {
      for (const actor of t.actors) expect(decideMove(t.from, t.trigger, actor)).toEqual({ ok: true, transition: t });
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
    expect(STATES.filter(isActive).sort()).toEqual([...ACTIVE_STATES].sort());
    expect(STATES.filter((s) => !isActive(s)).sort()).toEqual([...TERMINAL_STATES].sort());
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
