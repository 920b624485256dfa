import type { Queryable } from '@market/shared/db';

/** "Today" starts at 00:00 UTC, as in every dashboard figure. */
const START_OF_TODAY_UTC = `(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

/**
 * One round trip for the dashboard; each part is answered from an index (orders_by_status,
 * orders_created, disputes_one_open_per_order) rather than a scan of the orders.
 */
export const ORDER_FIGURES_SQL = `
    SELECT (SELECT COALESCE(json_object_agg(status, n), '{}'::json)
              FROM (SELECT status, count(*)::int AS n FROM orders GROUP BY status) AS counted) AS by_status,
           (SELECT count(*)::int FROM orders WHERE created_at >= ${START_OF_TODAY_UTC}) AS today,
           (SELECT count(*)::int FROM disputes WHERE status = 'open') AS disputes_open`;

export async function countOrderFigures(db: Queryable): Promise<{ byStatus: Record<string, number>; today: number; disputesOpen: number }> {
  const [row]: Array<{ by_status: Record<string, number>; today: number; disputes_open: number }> = await db.query(ORDER_FIGURES_SQL);
  return { byStatus: row!.by_status, today: row!.today, disputesOpen: row!.disputes_open };
}

/** Orders created per UTC day, today and the 29 days before, from the orders_created index; days without any are left out. */
export const ORDERS_BY_DAY_SQL = `
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS orders
      FROM orders
     WHERE created_at >= ${START_OF_TODAY_UTC} - interval '29 days'
     GROUP BY 1 ORDER BY 1`;

export async function countOrdersByDay(db: Queryable): Promise<Array<{ day: string; orders: number }>> {
  return db.query(ORDERS_BY_DAY_SQL);
}
