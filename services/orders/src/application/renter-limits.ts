import type { Tx } from '@market/shared/db';
import { ACTIVE_STATES } from '../domain/order-state';
import { limitsFor, renterLimitRefusal, startOfUtcDay } from '../domain/renter-limits';
import type { OrderSettings } from '../domain/settings';
import { lockRenterLimits, renterCounts, renterCountsAndBlock } from '../persistence/renter-repository';
import type { OrdersDeps } from './deps';

/**
 * Where a renter stands with an owner before the create's transaction: whether the owner blocks
 * them, and whether the limits hold them, so that the create counts their orders again under the
 * renter's lock (`limited`). Whether a new renter's balance exempts them is asked of the wallet only
 * when this count already reaches a limit (`balanceAsked`): below every limit the answer would
 * change nothing but whether the create takes the lock, and that lock and count in orders' own
 * transaction cost less than the call (ADR 0080). A wallet that cannot answer exempts nobody, so
 * the limits apply rather than the create failing. A renter the limits do not hold stays free of
 * them for this create: trust only grows (completed orders are never undone), and an exemption is
 * decided here. No call waits under the renter's lock: when the count under the lock reaches a limit
 * that this count had not, the create asks `balanceExempt` after its transaction has rolled back.
 */
export async function renterBeforeCreate(
  deps: OrdersDeps,
  renterId: string,
  ownerId: string,
  settings: OrderSettings,
  now: Date,
): Promise<{ blocked: boolean; limited: boolean; balanceAsked: boolean }> {
  const { blocked, ...tally } = await renterCountsAndBlock(deps.db, renterId, ownerId, ACTIVE_STATES, startOfUtcDay(now));
  if (blocked) return { blocked, limited: false, balanceAsked: false };
  const limited = limitsFor(tally, settings, false) !== null;
  if (!limited || renterLimitRefusal(tally, settings, false) === null) return { blocked, limited, balanceAsked: false };
  return { blocked, limited: !(await balanceExempt(deps, renterId, settings)), balanceAsked: true };
}

/** Whether a new renter's available balance exempts them from the limits; no answer exempts nobody. */
export async function balanceExempt(deps: OrdersDeps, renterId: string, settings: OrderSettings): Promise<boolean> {
  try {
    return (await deps.wallet.available(renterId)) >= settings['renter.new_balance_exempt'];
  } catch {
    return false;
  }
}

/**
 * Refuses the create when a renter the limits hold has reached one, counted under the renter's lock
 * in the create's own transaction: of two creates racing for the last slot, the second counts the
 * first. Only such renters queue on the lock (ADR 0079).
 */
export async function holdRenterLimits(tx: Tx, renterId: string, settings: OrderSettings, now: Date): Promise<void> {
  await lockRenterLimits(tx, renterId);
  const refusal = renterLimitRefusal(await renterCounts(tx, renterId, ACTIVE_STATES, startOfUtcDay(now)), settings, false);
  if (refusal) throw refusal;
}
