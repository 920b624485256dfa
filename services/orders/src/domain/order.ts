import type { EventData } from '@market/contracts';
import type { OrderState } from './order-state';
import type { OrderSettings } from './settings';
import type { Escrow, StoredCheckout } from './settlement';

/** An order as the service holds it, one field per stored column. */
export interface Order {
  id: string;
  listing_id: string;
  listing_title: string;
  renter_id: string;
  owner_id: string;
  hours: number;
  hourly_price: number;
  rent: number;
  deposit: number;
  amount: number;
  status: OrderState;
  paid_at: Date | null;
  started_at: Date | null;
  ends_at: Date | null;
  checkout: StoredCheckout | null;
  dispute_id: string | null;
  status_changed_at: Date;
  deadline_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** the latest charge asked of the wallet whose outcome orders has not learnt (ADR 0028) */
  charge_requested_at: Date | null;
  /** after this the wallet refuses that charge; the reconciler asks once it has passed */
  charge_deadline_at: Date | null;
  /** when the system looked for stored credentials to hand over after payment */
  credentials_checked_at: Date | null;
  /** the platform rate frozen at payment; every settlement of the order uses it */
  fee_rate_bps: number | null;
  /** when the back office was alerted that a disputed or abnormal order is overdue (ADR 0029) */
  overdue_alerted_at: Date | null;
  /** how many times the order was changed: a decision made on the order as read is stale once it differs (ADR 0052) */
  version: number;
  /** the admin who last marked the order abnormal: never the one who approves a reveal of it (ADR 0056) */
  marked_abnormal_by: string | null;
  /** the renewal whose charge is under way: no other move is made until its outcome is known (ADR 0065) */
  renewal_charge_id: string | null;
}

/** What a change of an order writes: some of its columns, and always when. */
export type OrderChanges = Partial<
  Pick<
    Order,
    | 'status'
    | 'paid_at'
    | 'started_at'
    | 'ends_at'
    | 'checkout'
    | 'dispute_id'
    | 'status_changed_at'
    | 'deadline_at'
    | 'charge_requested_at'
    | 'charge_deadline_at'
    | 'credentials_checked_at'
    | 'fee_rate_bps'
    | 'overdue_alerted_at'
    | 'marked_abnormal_by'
    | 'hours'
    | 'rent'
    | 'amount'
    | 'renewal_charge_id'
  >
> & { updated_at: Date };

/**
 * The platform rate of an order's settlements: the one frozen when it was paid (issue 19 item 3);
 * an order paid before rates were frozen uses the rate in force.
 */
export function feeRateOf(order: Order, settings: OrderSettings): number {
  return order.fee_rate_bps ?? settings['platform.commission_rate_bps'];
}

export function escrowOf(order: Order): Escrow {
  return { rent: Number(order.rent), deposit: Number(order.deposit), amount: Number(order.amount) };
}

/** What an order's events tell of it: known before the order is stored, so its creation's event is written with its insert. */
type SnapshotFields = Pick<Order, 'id' | 'listing_id' | 'listing_title' | 'renter_id' | 'owner_id' | 'status' | 'rent' | 'deposit' | 'amount' | 'hours'>;

/** The fields every order event carries (contracts/events.ts OrderSnapshot). */
export function orderSnapshot(order: SnapshotFields, reason: string | null, actorId: string | null): EventData<'order.created'> {
  return {
    order_id: order.id,
    listing_id: order.listing_id,
    listing_title: order.listing_title,
    renter_id: order.renter_id,
    owner_id: order.owner_id,
    status: order.status,
    rent: Number(order.rent),
    deposit: Number(order.deposit),
    amount: Number(order.amount),
    hours: order.hours,
    reason,
    actor_id: actorId,
  };
}
