import type { Tx } from '@market/shared/db';
import { ACTIVE_STATES } from '../domain/order-state';
import { isTrusted, limitsFor, renterLimitRefusal, startOfUtcDay, type RenterTally } from '../domain/renter-limits';
import type { OrderSettings } from '../domain/settings';
import { lockRenterLimits, renterCounts, renterCountsAndBlock } from '../persistence/renter-repository';
import type { OrdersDeps } from './deps';

/**
 * Where a renter stands with an owner before the create's transaction: whether the owner blocks
 * them, and whether the limits hold them (a new renter whose balance does not exempt them, asked of
 * the wallet here: no call waits under the renter's lock). A blocked or trusted renter needs no
 * answer; a wallet that cannot answer exempts nobody, so the limits apply rather than the create
 * failing. A renter the limits do not hold stays free of them for this create: trust only grows
 * (completed orders are never undone), and the exemption is decided here either way.
 */
export async function renterBeforeCreate(
  deps: OrdersDeps,
  renterId: string,
  ownerId: string,
  settings: OrderSettings,
  now: Date,
): Promise<{ blocked: boolean; limited: boolean }> {
  const { blocked, ...tally } = await renterCountsAndBlock(deps.db, renterId, ownerId, ACTIVE_STATES, startOfUtcDay(now));
  if (blocked) return { blocked, limited: false };
  const exempt = await balanceExempt(deps, renterId, tally, settings);
  return { blocked, limited: limitsFor(tally, settings, exempt) !== null };
}

async function balanceExempt(deps: OrdersDeps, renterId: string, tally: RenterTally, settings: OrderSettings): Promise<boolean> {
  if (isTrusted(tally, settings)) return false;
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
