import { type listOrders, type RouteQuery } from '@market/contracts';
import { callerUserId, type Identity } from '@market/shared/auth';
import { recordAudit } from '@market/shared/events';
import { handoffRecordsOf } from '../persistence/handoff-repository';
import { queryOrders } from '../persistence/order-repository';
import type { OrdersDeps } from './deps';
import { partyOrder } from './order-access';
import { handoffRecordViews } from './handoff-record-view';
import { toOrderView } from './order-view';
import { withRenterRecords } from './renter-record';

export async function partyOrderView(deps: OrdersDeps, identity: Identity, id: string) {
  const { order, userId } = await partyOrder(deps.db, id, identity);
  const [view] = await withRenterRecords(deps.db, userId, [toOrderView(order)]);
  return view!;
}

/** The caller's orders as renter, as owner, or both; newest first, keyset pages. */
export async function callerOrders(deps: OrdersDeps, identity: Identity, query: RouteQuery<typeof listOrders>) {
  const userId = callerUserId(identity);
  if (!userId) return { items: [], next_cursor: null };
  const page = await queryOrders(deps.db, { userId, role: query.role, status: query.status, cursor: query.cursor, limit: query.limit });
  return { items: await withRenterRecords(deps.db, userId, page.items.map(toOrderView)), next_cursor: page.next_cursor };
}

/**
 * Handoff records opened for one of the two parties while the rental runs; once the order has
 * ended each party sees only what they wrote (ADR 0033). The content is account credentials, so the
 * read itself is audited (who read which order's records), never the content.
 */
export async function partyHandoffRecords(deps: OrdersDeps, identity: Identity, id: string) {
  const { order, role } = await partyOrder(deps.db, id, identity);
  const rows = await handoffRecordsOf(deps.db, order.id);
  await deps.db.transaction((tx) =>
    recordAudit(deps.events, tx, identity, {
      action: 'order.handoff_records.read',
      biz_type: 'order',
      biz_id: order.id,
      detail: { role, records: rows.length },
    }),
  );
  return { items: handoffRecordViews(deps, rows, role, order.status) };
}
