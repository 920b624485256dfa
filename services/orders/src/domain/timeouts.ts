import type { OrderState } from './order-state';
import type { OrderSettings, TimeoutKey } from './settings';

export interface TimedState {
  /** the threshold, in minutes */
  key: TimeoutKey;
  /** counted from when the order entered the state, or from the end of the rental */
  since: 'entered' | 'ends_at';
}

/** CONTRACT §9: the states the timeout scan moves an order out of, and after how long. */
export const TIMED_STATES: Partial<Record<OrderState, TimedState>> = {
  pending_payment: { key: 'order.payment_timeout_minutes', since: 'entered' },
  pending_handoff: { key: 'order.handoff_timeout_minutes', since: 'entered' },
  pending_receive: { key: 'order.receive_timeout_minutes', since: 'entered' },
  in_use: { key: 'order.checkout_grace_minutes', since: 'ends_at' },
  pending_checkout_confirm: { key: 'order.checkout_confirm_timeout_minutes', since: 'entered' },
  pending_correction_confirm: { key: 'order.correction_confirm_timeout_minutes', since: 'entered' },
};

export interface OrderClock {
  status: OrderState;
  status_changed_at: Date;
  ends_at: Date | null;
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
  return new Date(start.getTime() + settings[timed.key] * minuteMs);
}

/** The states whose deadline depends on `key`. */
export function statesTimedBy(key: string): OrderState[] {
  return (Object.entries(TIMED_STATES) as Array<[OrderState, TimedState]>).filter(([, t]) => t.key === key).map(([s]) => s);
}
