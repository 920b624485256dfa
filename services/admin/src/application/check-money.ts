import type { AdminDeps } from './deps';
import { verifyMoney } from './verify-money';

/** money:verify on demand for the back office: what disagrees right now, and when it was read. */
export async function checkMoney(deps: AdminDeps) {
  const checked_at = new Date().toISOString();
  const mismatches = await verifyMoney(deps.internal, deps.config.MONEY_SETTLEMENT_DEADLINE_MS);
  return { checked_at, mismatches };
}
