import type { Identity } from '@market/shared/auth';
import { InvalidInput } from '@market/shared/errors';
import { recordAudit } from '@market/shared/events';
import { BillNotReady, ChannelUnavailable } from '../domain/errors';
import type { PaymentProvider } from '../domain/payment-channel';
import { keyOf, reconcile, type Reconciled } from '../domain/reconciliation';
import { isDay, shanghaiDayBounds, shanghaiMinutesOf, shanghaiYesterday } from '../domain/shanghai-day';
import { findRunOf, insertRun, ledgerLinesBetween, ledgerLinesFor, type RunRow } from '../persistence/reconciliation-repository';
import type { WalletDeps } from './deps';

/** A run as the contract shows it, money in fen. */
export function toRunView(row: RunRow) {
  return {
    id: row.id,
    provider: row.provider as PaymentProvider,
    day: row.day,
    status: row.status,
    bill_lines: row.bill_lines,
    ledger_lines: row.ledger_lines,
    matched: row.matched,
    findings: row.findings,
    bill_total: Number(row.bill_total),
    ledger_total: Number(row.ledger_total),
    fee_total: Number(row.fee_total),
    created_at: row.created_at.toISOString(),
  };
}

function countsByKind(result: Reconciled): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const f of result.findings) counts[f.kind] = (counts[f.kind] ?? 0) + 1;
  return counts;
}

/**
 * Reconciles one provider's bill of one Shanghai day with the ledger, once per (provider, day): a
 * day already reconciled answers its run as it was stored. The bill is fetched before the
 * transaction (no lock is held while the provider is asked); the run, its findings and, when there
 * are findings, the `ops.alert` for finance commit together, so an alert is raised once per day.
 */
export async function reconcileDay(deps: WalletDeps, provider: PaymentProvider, day: string, audited: Identity | null, now = new Date()) {
  if (!isDay(day)) throw new InvalidInput([{ path: 'body.day', message: 'not a calendar day' }]);
  if (shanghaiDayBounds(day).end > now) throw new InvalidInput([{ path: 'body.day', message: 'the day is not over yet in Asia/Shanghai' }]);
  const done = await findRunOf(deps.db, provider, day);
  if (done) return toRunView(done);
  const source = deps.channels.includes(provider) ? deps.bills.get(provider) : undefined;
  if (!source) throw new ChannelUnavailable(`${provider} bills are not available here`);
  const bill = await source.dailyBill(day);
  if (!bill) throw new BillNotReady(provider, day);
  const { start, end } = shanghaiDayBounds(day);
  const row = await deps.db.transaction(async (tx) => {
    const ofDay = await ledgerLinesBetween(tx, provider, start, end);
    const known = new Map((await ledgerLinesFor(tx, provider, bill.map((l) => l.reference))).map((l) => [keyOf(l), l]));
    const result = reconcile(bill, ofDay, known);
    const stored = await insertRun(tx, provider, day, result, now);
    // a racing run of the same day stored it first
    if (!stored) return (await findRunOf(tx, provider, day))!;
    const detail = { run_id: stored.id, provider, day, bill_lines: result.billLines, matched: result.matched, ...countsByKind(result) };
    if (audited) await recordAudit(deps.events, tx, audited, { action: 'reconciliation.run', biz_type: 'reconciliation', biz_id: stored.id, detail });
    if (result.findings.length > 0) {
      await deps.events.publish(tx, 'ops.alert', {
        alert: 'RECONCILIATION_FINDINGS',
        severity: 'warning',
        service: 'wallet',
        summary: `${provider}'s bill of ${day} and the ledger disagree on ${result.findings.length} line(s); see reconciliation ${stored.id}`,
        subject_type: 'reconciliation',
        subject_id: stored.id,
        detail,
        raised_at: now.toISOString(),
      });
    }
    return stored;
  });
  return toRunView(row);
}

/**
 * The daily job: once the providers have published yesterday's bills (after `afterMinutes` past
 * Shanghai midnight), each enabled provider with bills whose yesterday is not reconciled yet is.
 * A bill not out yet is asked for again at the next tick.
 */
export async function reconcileYesterday(deps: WalletDeps, now = new Date()): Promise<number> {
  if (shanghaiMinutesOf(now) < deps.reconciliation.afterMinutes) return 0;
  const day = shanghaiYesterday(now);
  let ran = 0;
  for (const provider of deps.bills.keys()) {
    if (!deps.channels.includes(provider) || (await findRunOf(deps.db, provider, day))) continue;
    try {
      await reconcileDay(deps, provider, day, null, now);
      ran += 1;
    } catch (err) {
      if (err instanceof BillNotReady) deps.log.info({ provider, day }, 'bill not published yet; asked again later');
      else deps.log.warn({ provider, day, err: { message: (err as Error).message } }, 'reconciliation could not run; tried again later');
    }
  }
  return ran;
}
