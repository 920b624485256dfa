import { type adminListDisputes, type listDisputes, type RouteQuery } from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { isUuid, type Queryable } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { findDispute, queryDisputes, type DisputeQuery } from '../persistence/dispute-repository';
import { findOrder } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { toDisputeView } from './dispute-view';
import { partyRole } from './order-access';

async function page(db: Queryable, query: DisputeQuery) {
  const rows = await queryDisputes(db, query);
  return { items: rows.items.map(toDisputeView), next_cursor: rows.next_cursor };
}

/** Disputes on the caller's orders, as renter or owner, whoever raised them. */
export async function callerDisputes(deps: OrdersDeps, identity: Identity, query: RouteQuery<typeof listDisputes>) {
  const userId = callerUserId(identity);
  if (!userId) return { items: [], next_cursor: null };
  return page(deps.db, { partyId: userId, status: query.status, cursor: query.cursor, limit: query.limit });
}

/** One dispute, for the two parties of its order only; to anyone else it does not exist. */
export async function partyDispute(deps: OrdersDeps, identity: Identity, id: string) {
  const userId = callerUserId(identity);
  const dispute = userId && isUuid(id) ? await findDispute(deps.db, id) : null;
  const order = dispute ? await findOrder(deps.db, dispute.order_id) : null;
  if (!dispute || !order || !partyRole(order, userId)) throw new NotFound('dispute not found');
  return toDisputeView(dispute);
}

/** Every dispute for the back office; an order_id that is no order's id matches nothing. */
export async function allDisputes(deps: OrdersDeps, query: RouteQuery<typeof adminListDisputes>) {
  if (query.order_id !== undefined && !isUuid(query.order_id)) return { items: [], next_cursor: null };
  return page(deps.db, { status: query.status, type: query.type, orderId: query.order_id, cursor: query.cursor, limit: query.limit });
}
