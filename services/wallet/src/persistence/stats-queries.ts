import type { Queryable } from '@market/shared/db';

/** "Today" starts at 00:00 UTC; "last 7 days" at 00:00 UTC six days before, so it holds today and six whole days. */
const START_OF_TODAY_UTC = `(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
const START_OF_WEEK_UTC = `(${START_OF_TODAY_UTC} - interval '6 days')`;

export interface LedgerFigures {
  gmvToday: number;
  gmvWeek: number;
  feesToday: number;
  feesWeek: number;
  rechargesToday: number;
  rechargedToday: number;
}

/**
 * The dashboard's money figures from the transfers of the last 7 days, read by the
 * transfers_by_type_time index alone (it carries the amount). Each order's escrow charge, each
 * settlement's platform fee and each credited recharge is exactly one transfer. Sums come back as
 * float8, exact for any amount of fen below 2^53.
 */
export const LEDGER_FIGURES_SQL = `
    SELECT COALESCE(sum(amount) FILTER (WHERE biz_type = 'order_payment' AND created_at >= ${START_OF_TODAY_UTC}), 0)::float8 AS "gmvToday",
           COALESCE(sum(amount) FILTER (WHERE biz_type = 'order_payment'), 0)::float8 AS "gmvWeek",
           COALESCE(sum(amount) FILTER (WHERE biz_type = 'platform_fee' AND created_at >= ${START_OF_TODAY_UTC}), 0)::float8 AS "feesToday",
           COALESCE(sum(amount) FILTER (WHERE biz_type = 'platform_fee'), 0)::float8 AS "feesWeek",
           count(*) FILTER (WHERE biz_type = 'recharge' AND created_at >= ${START_OF_TODAY_UTC})::int AS "rechargesToday",
           COALESCE(sum(amount) FILTER (WHERE biz_type = 'recharge' AND created_at >= ${START_OF_TODAY_UTC}), 0)::float8 AS "rechargedToday"
      FROM transfers
     WHERE biz_type IN ('order_payment', 'platform_fee', 'recharge') AND created_at >= ${START_OF_WEEK_UTC}`;

export async function sumLedgerFigures(db: Queryable): Promise<LedgerFigures> {
  const [row]: LedgerFigures[] = await db.query(LEDGER_FIGURES_SQL);
  return row!;
}

/** The same three sums per UTC day, today and the 29 days before, from the transfers_by_type_time index; days without any are left out. */
export const LEDGER_BY_DAY_SQL = `
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
           COALESCE(sum(amount) FILTER (WHERE biz_type = 'order_payment'), 0)::float8 AS gmv,
           COALESCE(sum(amount) FILTER (WHERE biz_type = 'platform_fee'), 0)::float8 AS platform_fees,
           COALESCE(sum(amount) FILTER (WHERE biz_type = 'recharge'), 0)::float8 AS recharges_amount
      FROM transfers
     WHERE biz_type IN ('order_payment', 'platform_fee', 'recharge') AND created_at >= ${START_OF_TODAY_UTC} - interval '29 days'
     GROUP BY 1 ORDER BY 1`;

export async function sumLedgerByDay(db: Queryable): Promise<Array<{ day: string; gmv: number; platform_fees: number; recharges_amount: number }>> {
  return db.query(LEDGER_BY_DAY_SQL);
}
