import { TERMINAL_STATES, type OrderState } from './order-state';

/** Who asks to read a handoff record. */
export type HandoffReader = 'renter' | 'owner' | 'admin' | 'admin_reveal';

/**
 * Whether a reader sees a handoff record's content, or only that it happened and when (ADR 0033).
 * Handed-over credentials serve the rental while it runs: once the order has ended a party sees
 * only what they wrote themselves (the owner their credentials, the renter their own notes). The
 * back office sees content only through an audited reveal, and only while the order is disputed or
 * abnormal (`revealAllowed`).
 */
export function handoffContentVisible(reader: HandoffReader, orderStatus: OrderState, authorRole: 'owner' | 'renter'): boolean {
  if (reader === 'admin_reveal') return true;
  if (reader === 'admin') return false;
  return !TERMINAL_STATES.includes(orderStatus) || authorRole === reader;
}

/** The states in which the back office may reveal handoff content: a dispute, or an order held for manual handling. */
export const REVEAL_STATES: readonly OrderState[] = ['disputed', 'abnormal'];

export function revealAllowed(orderStatus: OrderState): boolean {
  return REVEAL_STATES.includes(orderStatus);
}
