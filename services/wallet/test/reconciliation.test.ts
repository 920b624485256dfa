import { keyOf, reconcile, type BilledLine, type LedgerLine } from '../src/domain/reconciliation';
import { isDay, shanghaiDayBounds, shanghaiDayOf, shanghaiMinutesOf, shanghaiYesterday } from '../src/domain/shanghai-day';

const line = (kind: BilledLine['kind'], reference: string, amount: number, fee = 0): BilledLine => ({ kind, reference, providerId: `P-${reference}`, amount, fee });
const known = (lines: LedgerLine[]) => new Map(lines.map((l) => [keyOf(l), l]));

describe('matching a bill with the ledger', () => {
  const ofDay: LedgerLine[] = [
    { kind: 'payment', reference: 'p1', amount: 1_000 },
    { kind: 'refund', reference: 'r1', amount: 300 },
    { kind: 'transfer', reference: 'w1', amount: 500 },
  ];

  it('matches every line of a day that agrees, with the day’s net on both sides', () => {
    const bill = [line('payment', 'p1', 1_000, 6), line('refund', 'r1', 300), line('transfer', 'w1', 500), line('fee', 'day', 6)];
    expect(reconcile(bill, ofDay, known(ofDay))).toEqual({ billLines: 4, ledgerLines: 3, matched: 3, billTotal: 200, ledgerTotal: 200, feeTotal: 6, findings: [] });
  });

  it('names each disagreement with both sides’ reference and amount', () => {
    const bill = [line('payment', 'p1', 999, 6), line('refund', 'r1', 300), line('payment', 'stranger', 50), line('fee', 'day', 7)];
    const result = reconcile(bill, ofDay, known(ofDay));
    expect(result.matched).toBe(1);
    expect(result.findings).toEqual([
      { kind: 'amount_mismatch', lineKind: 'payment', reference: 'p1', providerId: 'P-p1', billAmount: 999, ledgerAmount: 1_000 },
      { kind: 'missing_in_ledger', lineKind: 'payment', reference: 'stranger', providerId: 'P-stranger', billAmount: 50, ledgerAmount: null },
      { kind: 'missing_in_bill', lineKind: 'transfer', reference: 'w1', providerId: null, billAmount: null, ledgerAmount: 500 },
      { kind: 'fee_mismatch', lineKind: 'fee', reference: null, providerId: null, billAmount: 7, ledgerAmount: 6 },
    ]);
  });

  it('matches a line the ledger has on another day, and counts a line billed twice once', () => {
    const yesterdays: LedgerLine = { kind: 'payment', reference: 'p0', amount: 700 };
    const bill = [line('payment', 'p0', 700), line('payment', 'p1', 1_000), line('payment', 'p1', 1_000)];
    const result = reconcile(bill, [ofDay[0]!], known([yesterdays, ofDay[0]!]));
    expect(result.matched).toBe(2);
    expect(result.findings.map((f) => [f.kind, f.reference])).toEqual([['missing_in_ledger', 'p1']]);
  });

  it('a payment and a refund of the same id are different lines', () => {
    const bill = [line('refund', 'p1', 1_000)];
    expect(reconcile(bill, [ofDay[0]!], known([ofDay[0]!])).findings.map((f) => f.kind)).toEqual(['missing_in_ledger', 'missing_in_bill']);
  });
});

describe('days in Asia/Shanghai', () => {
  it('start at 16:00 UTC the day before and last 24 hours', () => {
    expect(shanghaiDayBounds('2026-11-26')).toEqual({ start: new Date('2026-11-25T16:00:00Z'), end: new Date('2026-11-26T16:00:00Z') });
  });

  it('tell the day, yesterday and the time of day of an instant', () => {
    const at = new Date('2026-11-27T02:30:00Z'); // 10:30 in Shanghai
    expect([shanghaiDayOf(at), shanghaiYesterday(at), shanghaiMinutesOf(at)]).toEqual(['2026-11-27', '2026-11-26', 630]);
    expect(shanghaiDayOf(new Date('2026-11-26T15:59:59Z'))).toBe('2026-11-26');
    expect(shanghaiDayOf(new Date('2026-11-26T16:00:00Z'))).toBe('2026-11-27');
  });

  it('accept only calendar days', () => {
    expect(['2026-11-26', '2024-02-29'].map(isDay)).toEqual([true, true]);
    expect(['2026-02-30', '2026-13-01', '2026-1-01', 'yesterday'].map(isDay)).toEqual([false, false, false, false]);
  });
});
