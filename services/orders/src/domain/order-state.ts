import { OrderStatus, type z } from '@market/contracts';
import { Forbidden, InvalidState } from '@market/shared/errors';

export type OrderState = z.infer<typeof OrderStatus>;

/** Who moves an order: its two parties, the timeout scan, or the back office. */
export type Actor = 'renter' | 'owner' | 'system' | 'admin';

export const ORDER_TRIGGERS = [
  'pay',
  'cancel',
  'handoff',
  'note',
  'confirm_receive',
  'checkout',
  'confirm_checkout',
  'counter_checkout',
  'accept_checkout',
  'reject_checkout',
  'dispute',
  'timeout',
  'overdue',
  'arbitrate_complete',
  'arbitrate_close',
  'arbitrate_mark_abnormal',
  'admin_close',
  'admin_mark_abnormal',
  'renew',
] as const;
export type OrderTrigger = (typeof ORDER_TRIGGERS)[number];

/** What a move publishes; `note` and `overdue` publish no move of the order (the state stays). */
export type OrderMoveEvent =
  | 'order.paid'
  | 'order.cancelled'
  | 'order.handed_off'
  | 'order.received'
  | 'order.checkout_requested'
  | 'order.checkout_countered'
  | 'order.completed'
  | 'order.closed'
  | 'order.marked_abnormal'
  | 'order.renewed'
  | 'dispute.opened';

export interface OrderTransition {
  from: OrderState;
  trigger: OrderTrigger;
  actors: readonly Actor[];
  to: OrderState;
  event: OrderMoveEvent | null;
}

const PARTIES: readonly Actor[] = ['renter', 'owner'];

export const TERMINAL_STATES: readonly OrderState[] = ['completed', 'cancelled', 'closed'];
/** Every state in which an order has not ended; `abnormal` is held for the back office and still counts. */
export const ACTIVE_STATES: readonly OrderState[] = OrderStatus.options.filter((s) => !TERMINAL_STATES.includes(s));
const NON_TERMINAL = ACTIVE_STATES.filter((s) => s !== 'abnormal');

/** States in which either party may append handoff notes after the first one. */
const NOTE_STATES: readonly OrderState[] = ['pending_receive', 'in_use', 'pending_checkout_confirm', 'pending_correction_confirm', 'disputed'];
/** States from which a party can raise a dispute (its type follows from the state, see DISPUTE_TYPE_OF). */
const DISPUTABLE: readonly OrderState[] = ['pending_receive', 'in_use', 'pending_checkout_confirm', 'pending_correction_confirm'];

/**
 * docs/rules.md §4, as the one table planMove reads. Decided where the contract is silent:
 * - the automatic handoff of stored credentials is the `handoff` move made by `system`;
 * - later handoff notes are a `note` move that keeps the state, allowed from pending_receive to disputed;
 * - mark-abnormal of an abnormal order is refused, so two racing admins cannot both "win";
 * - the first deadline of a disputed or abnormal order is `overdue` (the back office is alerted, the
 *   state stays), the second the `timeout` that closes it (ADR 0029);
 * - the back office's close or mark-abnormal of a pending_payment order whose charge is still open
 *   is in the table but refused by planMove (409 CHARGE_PENDING, ADR 0052): the charge may land.
 * Every (state, trigger, actor) not listed is refused (transitionOrRefusal). What each move does
 * besides, planMove (domain/plan-move.ts) says.
 */
export const ORDER_TRANSITIONS: readonly OrderTransition[] = [
  // the system records a payment the charge reconciler learnt of from the wallet (ADR 0028)
  { from: 'pending_payment', trigger: 'pay', actors: ['renter', 'system'], to: 'pending_handoff', event: 'order.paid' },
  { from: 'pending_payment', trigger: 'cancel', actors: ['renter'], to: 'cancelled', event: 'order.cancelled' },
  { from: 'pending_payment', trigger: 'timeout', actors: ['system'], to: 'cancelled', event: 'order.cancelled' },
  { from: 'pending_handoff', trigger: 'cancel', actors: ['renter'], to: 'cancelled', event: 'order.cancelled' },
  { from: 'pending_handoff', trigger: 'timeout', actors: ['system'], to: 'cancelled', event: 'order.cancelled' },
  { from: 'pending_handoff', trigger: 'handoff', actors: ['owner', 'system'], to: 'pending_receive', event: 'order.handed_off' },
  { from: 'pending_receive', trigger: 'confirm_receive', actors: ['renter'], to: 'in_use', event: 'order.received' },
  { from: 'pending_receive', trigger: 'timeout', actors: ['system'], to: 'in_use', event: 'order.received' },
  { from: 'in_use', trigger: 'checkout', actors: ['renter'], to: 'pending_checkout_confirm', event: 'order.checkout_requested' },
  { from: 'in_use', trigger: 'timeout', actors: ['system'], to: 'pending_checkout_confirm', event: 'order.checkout_requested' },
  // the system records a renewal the reconciler learnt was charged (ADR 0065)
  { from: 'in_use', trigger: 'renew', actors: ['renter', 'system'], to: 'in_use', event: 'order.renewed' },
  { from: 'pending_checkout_confirm', trigger: 'confirm_checkout', actors: ['owner'], to: 'completed', event: 'order.completed' },
  { from: 'pending_checkout_confirm', trigger: 'timeout', actors: ['system'], to: 'completed', event: 'order.completed' },
  {
    from: 'pending_checkout_confirm',
    trigger: 'counter_checkout',
    actors: ['owner'],
    to: 'pending_correction_confirm',
    event: 'order.checkout_countered',
  },
  { from: 'pending_correction_confirm', trigger: 'accept_checkout', actors: ['renter'], to: 'completed', event: 'order.completed' },
  { from: 'pending_correction_confirm', trigger: 'timeout', actors: ['system'], to: 'completed', event: 'order.completed' },
  { from: 'pending_correction_confirm', trigger: 'reject_checkout', actors: ['renter'], to: 'disputed', event: 'dispute.opened' },
  ...DISPUTABLE.map((from) => ({ from, trigger: 'dispute' as const, actors: PARTIES, to: 'disputed' as const, event: 'dispute.opened' as const })),
  ...NOTE_STATES.map((from) => ({ from, trigger: 'note' as const, actors: PARTIES, to: from, event: null })),
  { from: 'disputed', trigger: 'arbitrate_complete', actors: ['admin'], to: 'completed', event: 'order.completed' },
  { from: 'disputed', trigger: 'overdue', actors: ['system'], to: 'disputed', event: null },
  { from: 'abnormal', trigger: 'overdue', actors: ['system'], to: 'abnormal', event: null },
  // the default resolution of an order left undecided past twice its threshold (ADR 0029)
  { from: 'disputed', trigger: 'timeout', actors: ['system'], to: 'closed', event: 'order.closed' },
  { from: 'abnormal', trigger: 'timeout', actors: ['system'], to: 'closed', event: 'order.closed' },
  { from: 'disputed', trigger: 'arbitrate_close', actors: ['admin'], to: 'closed', event: 'order.closed' },
  { from: 'disputed', trigger: 'arbitrate_mark_abnormal', actors: ['admin'], to: 'abnormal', event: 'order.marked_abnormal' },
  ...[...NON_TERMINAL, 'abnormal' as const].map((from) => ({
    from,
    trigger: 'admin_close' as const,
    actors: ['admin'] as const,
    to: 'closed' as const,
    event: 'order.closed' as const,
  })),
  ...NON_TERMINAL.map((from) => ({
    from,
    trigger: 'admin_mark_abnormal' as const,
    actors: ['admin'] as const,
    to: 'abnormal' as const,
    event: 'order.marked_abnormal' as const,
  })),
];

/** How a refusal names the move. */
const READABLE: Record<OrderTrigger, string> = {
  pay: 'pay',
  cancel: 'cancel',
  handoff: 'hand over',
  note: 'add a handoff note',
  confirm_receive: 'confirm receipt',
  checkout: 'check out',
  confirm_checkout: 'confirm the checkout',
  counter_checkout: 'counter the checkout',
  accept_checkout: 'accept the correction',
  reject_checkout: 'reject the correction',
  dispute: 'raise a dispute',
  timeout: 'time out',
  overdue: 'time out',
  arbitrate_complete: 'complete by arbitration',
  arbitrate_close: 'close by arbitration',
  arbitrate_mark_abnormal: 'mark abnormal by arbitration',
  admin_close: 'close',
  admin_mark_abnormal: 'mark abnormal',
  renew: 'renew',
};

/**
 * The row `actor`'s `trigger` takes from `from`, or the refusal: a trigger that belongs to someone
 * else here (the owner paying, the renter confirming a checkout), or never to this actor, is
 * `Forbidden` (403); one this actor could make, but not from this state, is `InvalidState` (409).
 */
export function transitionOrRefusal(from: OrderState, trigger: OrderTrigger, actor: Actor): OrderTransition | Forbidden | InvalidState {
  const rows = ORDER_TRANSITIONS.filter((t) => t.trigger === trigger);
  const own = rows.find((t) => t.from === from && t.actors.includes(actor));
  if (own) return own;
  const othersHere = rows.some((t) => t.from === from);
  const everOwn = rows.some((t) => t.actors.includes(actor));
  if (othersHere || !everOwn) return new Forbidden(`the ${actor} cannot ${READABLE[trigger]}`);
  return new InvalidState(`order is ${from}; cannot ${READABLE[trigger]}`);
}

export function isActive(state: OrderState): boolean {
  return ACTIVE_STATES.includes(state);
}

/** The type of a dispute follows from the state it is raised in (docs/rules.md §4). */
export const DISPUTE_TYPE_OF: Partial<Record<OrderState, 'handoff' | 'usage' | 'checkout'>> = {
  pending_receive: 'handoff',
  in_use: 'usage',
  pending_checkout_confirm: 'checkout',
  pending_correction_confirm: 'checkout',
};
