import {
  DASHBOARD_SERIES_DAYS,
  listingStats,
  orderStats,
  userStats,
  walletStats,
  type Dashboard,
  type DashboardSource,
  type z,
} from '@market/contracts';
import { countAdmins } from '../persistence/admin-users';
import type { AdminDeps } from './deps';

type Source = z.infer<typeof DashboardSource>;

/**
 * How long the dashboard waits for one service. Each answers from indexes in a few milliseconds; a
 * service that takes longer is treated as down so the page still shows everyone else's figures.
 */
export const DASHBOARD_SOURCE_BOUND_MS = 1000;

/** The source's answer, or null when it failed or did not answer within the bound (logged, never thrown). */
async function fromSource<T>(deps: Pick<AdminDeps, 'log'>, source: Source, ask: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const bound = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      late = true;
      deps.log.warn({ source, bound_ms: DASHBOARD_SOURCE_BOUND_MS }, 'dashboard source did not answer in time');
      resolve(null);
    }, DASHBOARD_SOURCE_BOUND_MS);
  });
  // A late failure (the internal client's own timeout) was already reported as "not in time".
  const answer = ask().catch((err: unknown) => {
    if (!late) deps.log.warn({ source, err }, 'dashboard source failed');
    return null;
  });
  try {
    return await Promise.race([answer, bound]);
  } finally {
    clearTimeout(timer);
  }
}

const DAY_MS = 86_400_000;

/** The UTC days of the series, oldest first, ending with today. */
function seriesDays(now: Date): string[] {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: DASHBOARD_SERIES_DAYS }, (_, i) =>
    new Date(today - (DASHBOARD_SERIES_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** A service's sparse daily rows keyed by day; null (the service did not answer) stays null. */
function byDay<T extends { day: string }>(rows: T[] | undefined): Map<string, T> | null {
  return rows ? new Map(rows.map((row) => [row.day, row])) : null;
}

/**
 * Figures come from the services that own them, asked in parallel; none is cached, so the page shows
 * the data as it is now. A service that fails or is slow leaves its figures null and is named in
 * `unavailable` — never zeros that would read as real.
 */
export async function getDashboard(deps: Pick<AdminDeps, 'db' | 'internal' | 'log'>): Promise<z.infer<typeof Dashboard>> {
  const [users, listings, orders, wallet, adminsTotal] = await Promise.all([
    fromSource(deps, 'identity', () => deps.internal.call(userStats)),
    fromSource(deps, 'catalog', () => deps.internal.call(listingStats)),
    fromSource(deps, 'orders', () => deps.internal.call(orderStats)),
    fromSource(deps, 'wallet', () => deps.internal.call(walletStats)),
    countAdmins(deps.db),
  ]);
  const answered: Record<Source, unknown> = { identity: users, catalog: listings, orders, wallet };
  const [usersByDay, ordersByDay, walletByDay] = [byDay(users?.daily), byDay(orders?.daily), byDay(wallet?.daily)];
  const last_30_days = seriesDays(new Date()).map((date) => {
    const money = walletByDay?.get(date);
    return {
      date,
      new_users: usersByDay ? (usersByDay.get(date)?.new_users ?? 0) : null,
      orders: ordersByDay ? (ordersByDay.get(date)?.orders ?? 0) : null,
      gmv: walletByDay ? (money?.gmv ?? 0) : null,
      recharges_amount: walletByDay ? (money?.recharges_amount ?? 0) : null,
      platform_fees: walletByDay ? (money?.platform_fees ?? 0) : null,
    };
  });
  return {
    users_total: users?.users_total ?? null,
    users_today: users?.users_today ?? null,
    users_frozen: users?.users_frozen ?? null,
    admins_total: adminsTotal,
    listings_by_status: listings?.listings_by_status ?? null,
    listings_pending_review: listings?.listings_pending_review ?? null,
    orders_by_status: orders?.orders_by_status ?? null,
    orders_today: orders?.orders_today ?? null,
    disputes_open: orders?.disputes_open ?? null,
    gmv_today: wallet?.gmv_today ?? null,
    gmv_last_7_days: wallet?.gmv_last_7_days ?? null,
    platform_revenue_today: wallet?.platform_revenue_today ?? null,
    platform_revenue_last_7_days: wallet?.platform_revenue_last_7_days ?? null,
    recharges_today_count: wallet?.recharges_today_count ?? null,
    recharges_today_amount: wallet?.recharges_today_amount ?? null,
    last_30_days,
    unavailable: (Object.keys(answered) as Source[]).filter((source) => answered[source] === null),
  };
}
