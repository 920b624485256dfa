import { OrderStatus } from '@market/contracts';
import { countOrderFigures, countOrdersByDay } from '../persistence/stats-queries';
import type { OrdersDeps } from './deps';

/** For the admin dashboard: every status with its count (zero included), today's orders, the open disputes and the orders per day. */
export async function readOrderStats(deps: Pick<OrdersDeps, 'db'>) {
  const [{ byStatus, today, disputesOpen }, daily] = await Promise.all([countOrderFigures(deps.db), countOrdersByDay(deps.db)]);
  const orders_by_status = Object.fromEntries(OrderStatus.options.map((s) => [s, byStatus[s] ?? 0])) as Record<(typeof OrderStatus.options)[number], number>;
  return { orders_by_status, orders_today: today, disputes_open: disputesOpen, daily };
}
