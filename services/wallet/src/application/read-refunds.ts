import type { adminListRefunds, listRefunds, RouteQuery } from '@market/contracts';
import type { UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { queryRefunds, type RefundQuery } from '../persistence/refund-repository';
import type { WalletDeps } from './deps';
import { toRefundView } from './refund-view';

async function page(deps: WalletDeps, query: RefundQuery) {
  const found = await queryRefunds(deps.db, query);
  return { items: found.items.map(toRefundView), next_cursor: found.next_cursor };
}

export function ownRefunds(deps: WalletDeps, identity: UserIdentity, query: RouteQuery<typeof listRefunds>) {
  return page(deps, { userId: identity.sub, limit: query.limit, cursor: query.cursor });
}

export async function anyRefunds(deps: WalletDeps, query: RouteQuery<typeof adminListRefunds>) {
  if ((query.user_id !== undefined && !isUuid(query.user_id)) || (query.payment_id !== undefined && !isUuid(query.payment_id))) return { items: [], next_cursor: null };
  return page(deps, { userId: query.user_id, paymentId: query.payment_id, status: query.status, kind: query.kind, limit: query.limit, cursor: query.cursor });
}
