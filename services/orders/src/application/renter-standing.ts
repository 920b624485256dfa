import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { ACTIVE_STATES } from '../domain/order-state';
import { isTrusted, limitsFor, startOfUtcDay } from '../domain/renter-limits';
import { blocksOf, renterCounts } from '../persistence/renter-repository';
import type { OrdersDeps } from './deps';
import { toBlockView } from './renter-blocks';

/** A user's renter limits as they apply now and the blocks by and of them, for the back office's user drawer. */
export async function renterStanding(deps: OrdersDeps, userId: string) {
  if (!isUuid(userId)) throw new NotFound('user not found');
  const now = new Date();
  const [settings, tally, blockedBy, blocking] = await Promise.all([
    deps.settings.current(deps.db),
    renterCounts(deps.db, userId, ACTIVE_STATES, startOfUtcDay(now)),
    blocksOf(deps.db, 'renter_id', userId),
    blocksOf(deps.db, 'owner_id', userId),
  ]);
  const trusted = isTrusted(tally, settings);
  const exempt = trusted ? false : await deps.wallet.available(userId).then((available) => available >= settings['renter.new_balance_exempt'], () => null);
  const limits = limitsFor(tally, settings, exempt === true);
  return {
    user_id: userId,
    completed_orders: tally.completed,
    active_orders: tally.active,
    orders_today: tally.today,
    trusted,
    exempt,
    max_active: limits?.maxActive ?? null,
    max_daily: limits?.maxDaily ?? null,
    blocked_by: blockedBy.map((b) => ({ owner_id: b.owner_id, created_at: b.created_at.toISOString() })),
    blocking: blocking.map(toBlockView),
  };
}
