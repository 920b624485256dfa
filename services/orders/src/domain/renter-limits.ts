import type { DomainError } from '@market/shared/errors';
import { RenterLimitReached } from './errors';
import type { OrderSettings } from './settings';

/** What a renter's limits look at: their orders as renter, and whether their balance exempts them. */
export interface RenterTally {
  completed: number;
  active: number;
  today: number;
}

/** A renter with fewer completed orders than `renter.trusted_after_orders` is new (docs/rules.md §4 Renter limits). */
export function isTrusted(tally: Pick<RenterTally, 'completed'>, settings: OrderSettings): boolean {
  return tally.completed >= settings['renter.trusted_after_orders'];
}

/** The limits a new renter is held to, or null for a trusted or exempt one. */
export function limitsFor(tally: RenterTally, settings: OrderSettings, exempt: boolean): { maxActive: number; maxDaily: number } | null {
  if (isTrusted(tally, settings) || exempt) return null;
  return { maxActive: settings['renter.new_max_active'], maxDaily: settings['renter.new_max_daily'] };
}

/** Why a new renter may not create one more order now: the limit it would break, by its key; null when it may. */
export function renterLimitRefusal(tally: RenterTally, settings: OrderSettings, exempt: boolean): DomainError | null {
  const limits = limitsFor(tally, settings, exempt);
  if (!limits) return null;
  if (tally.active >= limits.maxActive) return new RenterLimitReached('renter.new_max_active', limits.maxActive, `a new renter may hold at most ${limits.maxActive} active orders`);
  if (tally.today >= limits.maxDaily) return new RenterLimitReached('renter.new_max_daily', limits.maxDaily, `a new renter may create at most ${limits.maxDaily} orders a day`);
  return null;
}

/** 00:00 UTC of `now`'s day: the daily limit counts from there, as the withdrawal limit does. */
export function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}
