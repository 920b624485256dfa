import { callerUserId, type Identity } from '@market/shared/auth';
import { isUuid, type Queryable } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { isRefusal, planOrThrow, type Planned } from '@market/shared/planning';
import { findOrder, type OrderRow } from '../persistence/order-repository';
import type { RecentOrders } from './recent-orders';

export function partyRole(order: OrderRow, userId: string | null): 'renter' | 'owner' | null {
  if (userId === null) return null;
  if (order.renter_id === userId) return 'renter';
  if (order.owner_id === userId) return 'owner';
  return null;
}

/**
 * An order the caller is a party to, with the caller's role; locked when it is about to move.
 * Someone else's order and a malformed id look the same: 404, so ids reveal nothing.
 */
export async function partyOrder(
  db: Queryable,
  id: string,
  identity: Identity,
  opts: { lock?: boolean } = {},
): Promise<{ order: OrderRow; role: 'renter' | 'owner'; userId: string }> {
  const userId = callerUserId(identity);
  if (!userId || !isUuid(id)) throw new NotFound('order not found');
  const order = await findOrder(db, id, opts);
  const role = order ? partyRole(order, userId) : null;
  if (!order || !role) throw new NotFound('order not found');
  return { order, role, userId };
}

/**
 * The caller's order and what `decide` makes of it: decided on the order as this process last wrote
 * it (`RecentOrders`) when that allows it, else on the order as read, where a refusal is thrown. A
 * refusal is never answered from a remembered row, which may be behind the database; what is
 * allowed on it is written guarded by its version, so an older row writes nothing.
 */
export async function decideOnPartyOrder<Plan>(
  deps: { db: Queryable; recentOrders: RecentOrders },
  id: string,
  identity: Identity,
  decide: (order: OrderRow, role: 'renter' | 'owner') => Planned<Plan> | Promise<Planned<Plan>>,
): Promise<{ order: OrderRow; plan: Plan }> {
  const userId = callerUserId(identity);
  const remembered = userId === null ? undefined : deps.recentOrders.find(id);
  const role = remembered ? partyRole(remembered, userId) : null;
  if (remembered && role) {
    const plan = await decide(remembered, role);
    if (!isRefusal(plan)) return { order: remembered, plan };
  }
  const seen = await partyOrder(deps.db, id, identity);
  return { order: seen.order, plan: planOrThrow(await decide(seen.order, seen.role)) };
}
