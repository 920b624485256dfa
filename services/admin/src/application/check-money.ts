import { setTimeout as sleep } from 'node:timers/promises';
import { claimMoneyCheckRun, readLatestMoneyCheck, releaseMoneyCheckRun, storeMoneyCheck, type MoneyCheckResult } from '../persistence/money-check-results';
import type { AdminDeps } from './deps';
import { verifyMoney, type MoneyVerification } from './verify-money';

/** How long a claimed run may take before another replica may claim it again. */
const RUN_LEASE_MS = 120_000;
const FIRST_RESULT_POLL_MS = 250;

/** Stores what a run found as the latest money check, for GET to answer. */
export async function keepMoneyCheck(deps: Pick<AdminDeps, 'db'>, checkedAt: Date, found: MoneyVerification): Promise<MoneyCheckResult> {
  const result = { checked_at: checkedAt.toISOString(), ...found };
  await storeMoneyCheck(deps.db, result);
  return result;
}

/** money:verify now, for finance asking explicitly (POST): the fresh result, kept as the latest. */
export async function runMoneyCheck(deps: AdminDeps): Promise<MoneyCheckResult> {
  const checkedAt = new Date();
  return keepMoneyCheck(deps, checkedAt, await verifyMoney(deps.internal, deps.config.MONEY_SETTLEMENT_DEADLINE_MS));
}

/**
 * The latest money check (GET): the stored result while it is younger than MONEY_CHECK_MAX_AGE_MS;
 * otherwise one caller across the replicas claims the run and the others answer the stored result
 * meanwhile (or, before there is any, wait for the first), so reloading the page never runs a full
 * reconciliation more than once per interval.
 */
export async function latestMoneyCheck(deps: AdminDeps): Promise<MoneyCheckResult> {
  const maxAgeMs = deps.config.MONEY_CHECK_MAX_AGE_MS;
  const deadline = Date.now() + RUN_LEASE_MS;
  for (;;) {
    const now = new Date();
    const latest = await readLatestMoneyCheck(deps.db);
    if (latest && now.getTime() - Date.parse(latest.checked_at) < maxAgeMs) return latest;
    if (await claimMoneyCheckRun(deps.db, now, maxAgeMs, RUN_LEASE_MS)) {
      try {
        return await runMoneyCheck(deps);
      } catch (err) {
        await releaseMoneyCheckRun(deps.db);
        throw err;
      }
    }
    if (latest) return latest;
    if (Date.now() > deadline) return runMoneyCheck(deps);
    await sleep(FIRST_RESULT_POLL_MS);
  }
}
