import { type adminListLedger, type listWalletLedger, type RouteQuery } from '@market/contracts';
import { type UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { userAvailable } from '../domain/accounts';
import { findEscrow, heldForRenter } from '../persistence/escrow-repository';
import { balanceOf } from '../persistence/ledger-repository';
import { entriesOfOrder, queryEntries, type EntryQuery } from '../persistence/ledger-queries';
import type { WalletDeps } from './deps';
import { toEntryView } from './entry-view';

/** A user's available balance, for orders' renter limits; a malformed id has none. */
export async function readAvailable(deps: WalletDeps, userId: string) {
  if (!isUuid(userId)) throw new NotFound('user not found');
  return { user_id: userId, available: await balanceOf(deps.db, userAvailable(userId).key) };
}

export async function readBalance(deps: WalletDeps, identity: UserIdentity) {
  const [available, frozen] = await Promise.all([balanceOf(deps.db, userAvailable(identity.sub).key), heldForRenter(deps.db, identity.sub)]);
  return { available, frozen, currency: deps.currency };
}

async function page(deps: WalletDeps, query: EntryQuery) {
  const entries = await queryEntries(deps.db, query);
  return { items: entries.items.map(toEntryView), next_cursor: entries.next_cursor };
}

const EMPTY = { items: [], next_cursor: null };

export async function ownLedger(deps: WalletDeps, identity: UserIdentity, query: RouteQuery<typeof listWalletLedger>) {
  if (query.order_id !== undefined && !isUuid(query.order_id)) return EMPTY;
  return page(deps, { userId: identity.sub, orderId: query.order_id, bizType: query.biz_type, limit: query.limit, cursor: query.cursor });
}

export async function anyLedger(deps: WalletDeps, query: RouteQuery<typeof adminListLedger>) {
  if (query.order_id !== undefined && !isUuid(query.order_id)) return EMPTY;
  if (query.user_id !== undefined && !isUuid(query.user_id)) return EMPTY;
  return page(deps, { userId: query.user_id, orderId: query.order_id, bizType: query.biz_type, limit: query.limit, cursor: query.cursor });
}

/** What was charged into the order's escrow and what it still holds. */
export async function readOrderEscrow(deps: WalletDeps, orderId: string) {
  if (!isUuid(orderId)) throw new NotFound('order not found');
  const [row] = await findEscrow(deps.db, orderId);
  if (!row || row.status === 'void') throw new NotFound('the wallet never charged this order');
  return { order_id: row.order_id, charged: Number(row.amount), held: row.status === 'held' ? Number(row.amount) : 0 };
}

/** The money of one order for the back office: its payment, its escrow, and the users' entries of it. */
export async function readOrderLedger(deps: WalletDeps, orderId: string) {
  if (!isUuid(orderId)) throw new NotFound('order not found');
  const [[row], entries] = await Promise.all([findEscrow(deps.db, orderId), entriesOfOrder(deps.db, orderId)]);
  // A void record is an order that ended before any charge: no payment, no escrow.
  const charged = row && row.status !== 'void' ? { ...row, status: row.status } : null;
  return {
    order_id: orderId,
    payments: charged ? [{ id: charged.payment_id!, amount: Number(charged.amount), paid_at: charged.charged_at!.toISOString() }] : [],
    escrow: charged
      ? {
          charged: Number(charged.amount),
          held: charged.status === 'held' ? Number(charged.amount) : 0,
          status: charged.status,
          ended_at: charged.ended_at?.toISOString() ?? null,
        }
      : null,
    entries: entries.map(toEntryView),
  };
}
