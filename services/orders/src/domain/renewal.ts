import { InvalidInput, type DomainError } from '@market/shared/errors';
import { ListingUnavailable, RenewalNotAllowed, RenewalOverMaxHours, RenewalPending, RenewalTooLate } from './errors';
import type { Order } from './order';
import { priceOrder } from './settlement';
import type { OrderSettings } from './settings';

/** The longest rental an order may hold when its listing sets no maximum (the contracts' RentalHours). */
export const MOST_RENTAL_HOURS = 720;

/** What a renewal needs to know of the listing as catalog has it now. */
export interface RenewalListing {
  status: string;
  max_hours: number | null;
  allow_renewal: boolean;
}

/**
 * Why the renter may not extend the order by `hours` now (docs/rules.md §4 Renewal, ADR 0065), or the
 * extra rent: `hours` × the order's hourly price, the deposit not charged again. The state table has
 * allowed the move already; this is what it does not know.
 */
export function renewalRent(
  order: Order,
  hours: number,
  listing: RenewalListing,
  settings: OrderSettings,
  now: Date,
  minuteMs: number,
  maxMoney: number,
): number | DomainError {
  if (order.renewal_charge_id !== null) return new RenewalPending();
  if (!listing.allow_renewal) return new RenewalNotAllowed();
  if (listing.status !== 'online') return new ListingUnavailable();
  const minRemaining = settings['order.renewal_min_remaining_minutes'];
  if (order.ends_at === null || order.ends_at.getTime() - now.getTime() < minRemaining * minuteMs) return new RenewalTooLate(minRemaining);
  const maxHours = listing.max_hours ?? MOST_RENTAL_HOURS;
  if (order.hours + hours > maxHours) return new RenewalOverMaxHours(maxHours, order.hours);
  const extra = priceOrder(hours, Number(order.hourly_price), 0, maxMoney);
  if (!extra || !Number.isSafeInteger(Number(order.amount) + extra.rent) || Number(order.amount) + extra.rent > maxMoney) {
    return new InvalidInput([{ path: 'hours', message: 'the renewed order would exceed the largest amount an order may hold' }]);
  }
  return extra.rent;
}
