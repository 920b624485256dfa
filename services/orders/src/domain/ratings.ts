import { RATING_TAGS, type RatingDirection, type RatingTag } from '@market/contracts';
import { InvalidInput, type DomainError } from '@market/shared/errors';
import { AlreadyRated, OrderNotCompleted, RatingWindowClosed } from './errors';
import type { Order } from './order';

/** One day of `rating.window_days`; tests shorten it through RATING_DAY_MS as ORDER_MINUTE_MS shortens minutes. */
export type DayMs = number;

/** A stored rating as the rules need it. */
export interface RatingFacts {
  direction: RatingDirection;
  window_closes_at: Date;
  published_at: Date | null;
}

export function directionOf(role: 'renter' | 'owner'): RatingDirection {
  return role === 'renter' ? 'renter_to_owner' : 'owner_to_renter';
}

/**
 * When the order's rating window closes: fixed by its first rating (so the second party and every
 * replica's publisher work by one close even if rating.window_days changes meanwhile), otherwise
 * `windowDays` days after the order completed (a completed order never moves again, so its
 * status_changed_at is its completion).
 */
export function windowClosesAt(order: Order, existing: readonly RatingFacts[], windowDays: number, dayMs: DayMs): Date {
  const fixed = existing[0]?.window_closes_at;
  return fixed ?? new Date(order.status_changed_at.getTime() + windowDays * dayMs);
}

/**
 * Why a party may not rate the order now, or null: not completed, the window closed, rated already,
 * or a tag from the other direction's list.
 */
export function ratingRefusal(
  order: Order,
  direction: RatingDirection,
  tags: readonly RatingTag[],
  existing: readonly RatingFacts[],
  closesAt: Date,
  now: Date,
): DomainError | null {
  if (order.status !== 'completed') return new OrderNotCompleted();
  if (existing.some((r) => r.direction === direction)) return new AlreadyRated();
  if (now.getTime() >= closesAt.getTime()) return new RatingWindowClosed();
  const allowed: readonly string[] = RATING_TAGS[direction];
  const foreign = tags.findIndex((tag) => !allowed.includes(tag));
  if (foreign >= 0) {
    return new InvalidInput([{ path: `tags.${foreign}`, message: `not a tag of ${direction}: one of ${allowed.join(', ')}` }]);
  }
  return null;
}

/** Ratings publish together once both parties have rated: neither can answer the other's in kind. */
export function bothRated(existing: readonly RatingFacts[], added: RatingDirection): boolean {
  return existing.some((r) => r.direction !== added);
}
