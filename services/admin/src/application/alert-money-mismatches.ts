import { recordAudit } from '@market/shared/events';
import { rememberMismatches, type MismatchKey } from '../persistence/money-mismatches';
import { keepMoneyCheck } from './check-money';
import type { AdminDeps } from './deps';
import { verifyMoney } from './verify-money';

const isRecharge = (check: string) => check.includes('recharge');

/** A finding as the back office is alerted of it: the rule, its subject (or none for a ledger rule), the fen and the detail. */
interface Finding extends MismatchKey {
  subjectType: 'order' | 'payment' | 'ledger';
  subjectId: string | null;
  detail: string;
}

/**
 * The periodic money:verify: each disagreement (between orders and the wallet, or in the wallet's
 * ledger) is an error log line at every run and, the first time it is found, a `money.mismatch`
 * audit entry (result failure) and an `ops.alert` in the back office's notifications, naming the
 * order, payment or ledger rule and the fen. The result is kept as the latest money check (what GET
 * /api/admin/money-check answers). Answers how many it found.
 */
export async function alertMoneyMismatches(deps: AdminDeps): Promise<number> {
  const checkedAt = new Date();
  const found = await verifyMoney(deps.internal, deps.config.MONEY_SETTLEMENT_DEADLINE_MS);
  await keepMoneyCheck(deps, checkedAt, found);
  const findings: Finding[] = [
    ...found.mismatches.map((m) => ({ ...m, subjectType: isRecharge(m.check) ? ('payment' as const) : ('order' as const), subjectId: m.id })),
    // a ledger rule is one finding, whatever rows break it; it is remembered under the rule's name
    ...found.ledger.differences.map((d) => ({
      check: `ledger: ${d.check}`,
      id: 'ledger',
      fen: 0,
      subjectType: 'ledger' as const,
      subjectId: null,
      detail: `${d.rows.length} row(s), first ${JSON.stringify(d.rows[0]).slice(0, 300)}`,
    })),
  ];
  for (const f of findings) deps.log.error({ check: f.check, id: f.subjectId, fen: f.fen, detail: f.detail }, 'money:verify found a mismatch');
  await deps.db.transaction(async (tx) => {
    const now = new Date();
    const fresh = new Set(await rememberMismatches(tx, findings, now));
    for (const f of findings.filter((finding) => fresh.has(finding))) {
      const detail = { check: f.check, fen: f.fen, detail: f.detail };
      const subject = f.subjectId === null ? f.check : `${f.subjectType} ${f.subjectId}, ${f.fen} fen`;
      await recordAudit(deps.events, tx, null, { action: 'money.mismatch', biz_type: f.subjectType, biz_id: f.subjectId, detail, result: 'failure' });
      await deps.events.publish(tx, 'ops.alert', {
        alert: 'MONEY_MISMATCH',
        severity: 'critical',
        service: 'admin',
        summary: f.subjectId === null ? `money:verify: ${subject} (${f.detail})` : `money:verify: ${f.check}: ${subject} (${f.detail})`,
        subject_type: f.subjectType,
        subject_id: f.subjectId,
        detail,
        raised_at: now.toISOString(),
      });
    }
  });
  return findings.length;
}
