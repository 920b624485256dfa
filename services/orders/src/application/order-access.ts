import { callerUserId, type Identity } from '@market/shared/auth';
import { isUuid, type Queryable } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
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
 * The order as this process last wrote it, if the caller is a party to it: a row to plan a move on,
 * never to refuse one on (`RecentOrders`). Null when none is remembered or the caller is no party.
 */
export function rememberedPartyOrder(recent: RecentOrders, id: string, identity: Identity): { order: OrderRow; role: 'renter' | 'owner' } | null {
  const userId = callerUserId(identity);
  const order = userId === null ? undefined : recent.find(id);
  const role = order ? partyRole(order, userId) : null;
  return order && role ? { order, role } : null;
}
