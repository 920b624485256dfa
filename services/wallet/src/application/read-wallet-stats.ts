import { sumLedgerByDay, sumLedgerFigures } from '../persistence/stats-queries';
import type { WalletDeps } from './deps';

/** For the admin dashboard: GMV, platform revenue and recharges, in fen, today, over 7 days and per day. */
export async function readWalletStats(deps: Pick<WalletDeps, 'db'>) {
  const [f, daily] = await Promise.all([sumLedgerFigures(deps.db), sumLedgerByDay(deps.db)]);
  return {
    gmv_today: f.gmvToday,
    gmv_last_7_days: f.gmvWeek,
    platform_revenue_today: f.feesToday,
    platform_revenue_last_7_days: f.feesWeek,
    recharges_today_count: f.rechargesToday,
    recharges_today_amount: f.rechargedToday,
    daily,
  };
}
