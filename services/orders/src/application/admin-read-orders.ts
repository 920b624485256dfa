import { type adminListOrders, type RouteQuery } from '@market/contracts';
import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { latestDisputeOf } from '../persistence/dispute-repository';
import { handoffRecordsOf } from '../persistence/handoff-repository';
import { findOrder, queryAllOrders } from '../persistence/order-repository';
import { renewalsOf, type RenewalRow } from '../persistence/renewal-repository';
import type { OrdersDeps } from './deps';
import { toDisputeView } from './dispute-view';
import { handoffRecordViews } from './handoff-record-view';
import { toOrderView } from './order-view';

const EMPTY = { items: [], next_cursor: null };

/** All orders for the back office, newest first; an id filter that is no id matches nothing. */
export async function allOrders(deps: OrdersDeps, query: RouteQuery<typeof adminListOrders>) {
  const ids = [query.renter_id, query.owner_id, query.listing_id];
  if (ids.some((id) => id !== undefined && !isUuid(id))) return EMPTY;
  const page = await queryAllOrders(deps.db, {
    status: query.status,
    renterId: query.renter_id,
    ownerId: query.owner_id,
    listingId: query.listing_id,
    createdFrom: query.created_from ? new Date(query.created_from) : undefined,
    createdTo: query.created_to ? new Date(query.created_to) : undefined,
    cursor: query.cursor,
    limit: query.limit,
  });
  return { items: page.items.map(toOrderView), next_cursor: page.next_cursor };
}

export async function existingOrder(deps: Pick<OrdersDeps, 'db'>, id: string) {
  const order = isUuid(id) ? await findOrder(deps.db, id) : null;
  if (!order) throw new NotFound('order not found');
  return order;
}

function toRenewalView(row: RenewalRow) {
  return {
    id: row.id,
    hours: row.hours,
    rent: Number(row.rent),
    previous_ends_at: row.previous_ends_at!.toISOString(),
    ends_at: row.ends_at!.toISOString(),
    renewed_at: row.renewed_at!.toISOString(),
  };
}

/** The order with its latest dispute, its renewals and, from the wallet, its payment, escrow and ledger entries. */
export async function adminOrderDetail(deps: OrdersDeps, id: string) {
  const order = await existingOrder(deps, id);
  const [dispute, money, renewals] = await Promise.all([latestDisputeOf(deps.db, order.id), deps.wallet.ledger(order.id), renewalsOf(deps.db, order.id)]);
  return {
    ...toOrderView(order),
    dispute: dispute ? toDisputeView(dispute) : null,
    payments: money.payments,
    escrow: money.escrow,
    ledger_entries: money.entries,
    renewals: renewals.map(toRenewalView),
  };
}

/**
 * Handoff records for the back office: who handed over what when, the content withheld. The
 * credentials are the two parties' (ADR 0033); content reaches an admin only by `revealHandoffRecords` (`reveal-handoff.ts`).
 */
export async function adminHandoffRecords(deps: OrdersDeps, id: string) {
  const order = await existingOrder(deps, id);
  const rows = await handoffRecordsOf(deps.db, order.id);
  return { items: handoffRecordViews(deps, rows, 'admin', order.status) };
}
