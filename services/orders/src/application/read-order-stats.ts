import { OrderStatus } from '@market/contracts';
import { countOrderFigures } from '../persistence/stats-queries';
import type { OrdersDeps } from './deps';

/** For the admin dashboard: every status with its count (zero included), today's orders and the open disputes. */
export async function readOrderStats(deps: Pick<OrdersDeps, 'db'>) {
  const { byStatus, today, disputesOpen } = await countOrderFigures(deps.db);
  const orders_by_status = Object.fromEntries(OrderStatus.options.map((s) => [s, byStatus[s] ?? 0])) as Record<(typeof OrderStatus.options)[number], number>;
  return { orders_by_status, orders_today: today, disputes_open: disputesOpen };
}
