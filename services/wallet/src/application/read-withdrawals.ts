import { type adminListWithdrawals, type listWithdrawals, type RouteQuery } from '@market/contracts';
import { type UserIdentity } from '@market/shared/auth';
import { isUuid } from '@market/shared/db';
import { queryWithdrawals, type WithdrawalQuery } from '../persistence/withdrawal-repository';
import type { WalletDeps } from './deps';
import { toWithdrawalView } from './withdrawal-view';

async function page(deps: WalletDeps, query: WithdrawalQuery, audience: 'owner' | 'others') {
  const found = await queryWithdrawals(deps.db, query);
  return { items: found.items.map((row) => toWithdrawalView(row, audience)), next_cursor: found.next_cursor };
}

export function ownWithdrawals(deps: WalletDeps, identity: UserIdentity, query: RouteQuery<typeof listWithdrawals>) {
  return page(deps, { userId: identity.sub, limit: query.limit, cursor: query.cursor }, 'owner');
}

export async function anyWithdrawals(deps: WalletDeps, query: RouteQuery<typeof adminListWithdrawals>) {
  if (query.user_id !== undefined && !isUuid(query.user_id)) return { items: [], next_cursor: null };
  return page(deps, { userId: query.user_id, status: query.status, channel: query.channel, limit: query.limit, cursor: query.cursor }, 'others');
}
