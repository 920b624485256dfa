import { orderMoneyFacts, orderStats } from '@market/contracts';
import { internalRoute, type InternalBinding } from '@market/shared/http';
import type { OrdersDeps } from '../application/deps';
import { readMoneyFacts } from '../application/read-money-facts';
import { readOrderStats } from '../application/read-order-stats';

/** `/internal/*` for other services, by their shared contracts. */
export function ordersInternalRoutes(deps: OrdersDeps): InternalBinding[] {
  return [internalRoute(orderStats, () => readOrderStats(deps)), internalRoute(orderMoneyFacts, ({ query }) => readMoneyFacts(deps, query))];
}
