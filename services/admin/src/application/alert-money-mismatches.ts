import { recordAudit } from '@market/shared/events';
import type { AdminDeps } from './deps';
import { verifyMoney } from './verify-money';

/**
 * The periodic money:verify: each disagreement is an error log line and a `money.mismatch` audit
 * entry (result failure) in the back office's audit log, naming the order or payment and the fen.
 * Answers how many it found.
 */
export async function alertMoneyMismatches(deps: AdminDeps): Promise<number> {
  const mismatches = await verifyMoney(deps.internal, deps.config.MONEY_SETTLEMENT_DEADLINE_MS);
  if (mismatches.length === 0) return 0;
  await deps.db.transaction(async (tx) => {
    for (const m of mismatches) {
      deps.log.error({ check: m.check, id: m.id, fen: m.fen, detail: m.detail }, 'money:verify found a mismatch');
      await recordAudit(deps.events, tx, null, {
        action: 'money.mismatch',
        biz_type: m.check.includes('recharge') ? 'payment' : 'order',
        biz_id: m.id,
        detail: { check: m.check, fen: m.fen, detail: m.detail },
        result: 'failure',
      });
    }
  });
  return mismatches.length;
}
