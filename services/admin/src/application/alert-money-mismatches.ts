import { recordAudit } from '@market/shared/events';
import { rememberMismatches } from '../persistence/money-mismatches';
import type { AdminDeps } from './deps';
import { verifyMoney } from './verify-money';

const isRecharge = (check: string) => check.includes('recharge');

/**
 * The periodic money:verify: each disagreement is an error log line at every run and, the first
 * time it is found, a `money.mismatch` audit entry (result failure) and an `ops.alert` in the back
 * office's notifications, naming the order or payment and the fen. Answers how many it found.
 */
export async function alertMoneyMismatches(deps: AdminDeps): Promise<number> {
  const mismatches = await verifyMoney(deps.internal, deps.config.MONEY_SETTLEMENT_DEADLINE_MS);
  for (const m of mismatches) deps.log.error({ check: m.check, id: m.id, fen: m.fen, detail: m.detail }, 'money:verify found a mismatch');
  await deps.db.transaction(async (tx) => {
    const now = new Date();
    const fresh = new Set(await rememberMismatches(tx, mismatches, now));
    for (const m of mismatches.filter((found) => fresh.has(found))) {
      const subjectType = isRecharge(m.check) ? 'payment' : 'order';
      const detail = { check: m.check, fen: m.fen, detail: m.detail };
      await recordAudit(deps.events, tx, null, { action: 'money.mismatch', biz_type: subjectType, biz_id: m.id, detail, result: 'failure' });
      await deps.events.publish(tx, 'ops.alert', {
        alert: 'MONEY_MISMATCH',
        severity: 'critical',
        service: 'admin',
        summary: `money:verify: ${m.check}: ${subjectType} ${m.id}, ${m.fen} fen (${m.detail})`,
        subject_type: subjectType,
        subject_id: m.id,
        detail,
        raised_at: now.toISOString(),
      });
    }
  });
  return mismatches.length;
}
