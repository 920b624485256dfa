import type { MoneyCheck, z } from '@market/contracts';
import type { Queryable } from '@market/shared/db';

export type MoneyCheckResult = z.infer<typeof MoneyCheck>;

/** The latest money check stored, or null before the first. */
export async function readLatestMoneyCheck(db: Queryable): Promise<MoneyCheckResult | null> {
  const rows: Array<{ result: MoneyCheckResult | null }> = await db.query(`SELECT result FROM money_check_results WHERE id = 1`);
  return rows[0]?.result ?? null;
}

/**
 * Claims the next run for `leaseMs` when the stored result is older than `maxAgeMs` (or missing)
 * and no other run holds a claim; true when this caller is to run it. One row, one winner.
 */
export async function claimMoneyCheckRun(db: Queryable, now: Date, maxAgeMs: number, leaseMs: number): Promise<boolean> {
  const rows: unknown[] = await db.query(
    `INSERT INTO money_check_results AS m (id, running_until) VALUES (1, $1::timestamptz + make_interval(secs => $3::float8 / 1000))
     ON CONFLICT (id) DO UPDATE SET running_until = EXCLUDED.running_until
       WHERE (m.running_until IS NULL OR m.running_until < $1)
         AND (m.checked_at IS NULL OR m.checked_at <= $1::timestamptz - make_interval(secs => $2::float8 / 1000))
     RETURNING id`,
    [now, maxAgeMs, leaseMs],
  );
  return rows.length > 0;
}

/** Stores a result unless a later one is stored already (runs may finish out of order); ends the claim. */
export async function storeMoneyCheck(db: Queryable, result: MoneyCheckResult): Promise<void> {
  await db.query(
    `INSERT INTO money_check_results AS m (id, checked_at, result) VALUES (1, $1, $2::jsonb)
     ON CONFLICT (id) DO UPDATE SET checked_at = GREATEST(m.checked_at, EXCLUDED.checked_at),
       result = CASE WHEN m.checked_at IS NULL OR m.checked_at <= EXCLUDED.checked_at THEN EXCLUDED.result ELSE m.result END,
       running_until = NULL`,
    [result.checked_at, JSON.stringify(result)],
  );
}

/** Ends a claim whose run failed, so the next caller runs the check instead of waiting out the lease. */
export async function releaseMoneyCheckRun(db: Queryable): Promise<void> {
  await db.query(`UPDATE money_check_results SET running_until = NULL WHERE id = 1`);
}
