import type { OrderState } from './order-state';
import type { OrderSettings, TimeoutKey } from './settings';

export interface TimedState {
  /** the threshold */
  key: TimeoutKey;
  /** minutes in one unit of the threshold: 1 for `_minutes` keys, 60 for `_hours` keys */
  unitMinutes: number;
  /** counted from when the order entered the state, or from the end of the rental */
  since: 'entered' | 'ends_at';
  /**
   * `alert-then-resolve`: the first deadline alerts the back office, the second (twice the
   * threshold) applies the default resolution (ADR 0029); otherwise the deadline moves the order.
   */
  stages?: 'alert-then-resolve';
}

/** docs/rules.md §9 (and ADR 0029 for disputed and abnormal): the states the timeout scan acts on, and after how long. */
export const TIMED_STATES: Partial<Record<OrderState, TimedState>> = {
  pending_payment: { key: 'order.payment_timeout_minutes', unitMinutes: 1, since: 'entered' },
  pending_handoff: { key: 'order.handoff_timeout_minutes', unitMinutes: 1, since: 'entered' },
  pending_receive: { key: 'order.receive_timeout_minutes', unitMinutes: 1, since: 'entered' },
  in_use: { key: 'order.checkout_grace_minutes', unitMinutes: 1, since: 'ends_at' },
  pending_checkout_confirm: { key: 'order.checkout_confirm_timeout_minutes', unitMinutes: 1, since: 'entered' },
  pending_correction_confirm: { key: 'order.correction_confirm_timeout_minutes', unitMinutes: 1, since: 'entered' },
  disputed: { key: 'order.dispute_timeout_hours', unitMinutes: 60, since: 'entered', stages: 'alert-then-resolve' },
  abnormal: { key: 'order.abnormal_timeout_hours', unitMinutes: 60, since: 'entered', stages: 'alert-then-resolve' },
};

export interface OrderClock {
  status: OrderState;
  status_changed_at: Date;
  ends_at: Date | null;
  /** when the back office was alerted that the order is overdue in this state (two-stage states) */
  overdue_alerted_at?: Date | null;
}

/** The threshold of a timed state in milliseconds (`minuteMs`: the length of one configured minute). */
export function thresholdMs(timed: TimedState, value: number, minuteMs: number): number {
  return value * timed.unitMinutes * minuteMs;
}

/**
 * When the scan moves the order next, or null. `minuteMs` is the length of a configured minute
 * (60 000 in production; tests shorten it so a threshold of 1 passes in a second).
 */
export function deadlineOf(order: OrderClock, settings: OrderSettings, minuteMs: number): Date | null {
  const timed = TIMED_STATES[order.status];
  if (!timed) return null;
  const start = timed.since === 'entered' ? order.status_changed_at : order.ends_at;
  if (!start) return null;
  const stage = order.overdue_alerted_at ? 2 : 1;
  return new Date(start.getTime() + stage * thresholdMs(timed, settings[timed.key] as number, minuteMs));
}

/** The states whose deadline depends on `key`. */
export function statesTimedBy(key: string): OrderState[] {
  return (Object.entries(TIMED_STATES) as Array<[OrderState, TimedState]>).filter(([, t]) => t.key === key).map(([s]) => s);
}
