import type { FindingKind, z } from '@market/contracts';

export type FindingKindName = z.infer<typeof FindingKind>;
export type LineKind = 'payment' | 'refund' | 'transfer' | 'fee';

/** One bill line as matching reads it (the provider's `BillLine`, in fen). */
export interface BilledLine {
  kind: LineKind;
  reference: string;
  providerId: string | null;
  amount: number;
  fee: number;
}

/** One movement the ledger made with a provider: a recharge credited, a refund returned, a withdrawal paid. */
export interface LedgerLine {
  kind: Exclude<LineKind, 'fee'>;
  reference: string;
  amount: number;
}

export interface Finding {
  kind: FindingKindName;
  lineKind: LineKind;
  reference: string | null;
  providerId: string | null;
  billAmount: number | null;
  ledgerAmount: number | null;
}

export interface Reconciled {
  billLines: number;
  ledgerLines: number;
  matched: number;
  billTotal: number;
  ledgerTotal: number;
  feeTotal: number;
  findings: Finding[];
}

/** A line's identity on both sides: its kind and our reference. */
export const keyOf = (line: { kind: string; reference: string }) => `${line.kind}:${line.reference}`;

/** Money in is positive, money out (refunds, transfers) negative: the day's net through the provider. */
const signed = (line: { kind: LineKind; amount: number }) => (line.kind === 'payment' ? line.amount : line.kind === 'fee' ? 0 : -line.amount);

/**
 * Matches a provider's bill of one day with the ledger. `ofDay`: the ledger's movements with that
 * provider in that day, each of which the bill must carry; `known`: the ledger's movements for the
 * bill's references whatever their day (a payment the provider books just after midnight is still
 * the ledger's). Each bill line matches one movement of its kind and reference, by amount; the
 * fees the bill charges (`fee` lines) must add up to the fees of its lines. Pure.
 */
export function reconcile(bill: readonly BilledLine[], ofDay: readonly LedgerLine[], known: ReadonlyMap<string, LedgerLine>): Reconciled {
  const findings: Finding[] = [];
  const billed = new Set<string>();
  let matched = 0;
  const trades = bill.filter((line) => line.kind !== 'fee');
  for (const line of trades) {
    const key = keyOf(line);
    const ledger = billed.has(key) ? undefined : known.get(key);
    billed.add(key);
    const base = { lineKind: line.kind, reference: line.reference, providerId: line.providerId, billAmount: line.amount };
    if (!ledger) findings.push({ ...base, kind: 'missing_in_ledger', ledgerAmount: null });
    else if (ledger.amount !== line.amount) findings.push({ ...base, kind: 'amount_mismatch', ledgerAmount: ledger.amount });
    else matched += 1;
  }
  for (const line of ofDay) {
    if (!billed.has(keyOf(line))) {
      findings.push({ kind: 'missing_in_bill', lineKind: line.kind, reference: line.reference, providerId: null, billAmount: null, ledgerAmount: line.amount });
    }
  }
  const lineFees = trades.reduce((sum, line) => sum + line.fee, 0);
  const fees = bill.filter((line) => line.kind === 'fee');
  const charged = fees.reduce((sum, line) => sum + line.amount, 0);
  if (fees.length > 0 && charged !== lineFees) {
    findings.push({ kind: 'fee_mismatch', lineKind: 'fee', reference: null, providerId: null, billAmount: charged, ledgerAmount: lineFees });
  }
  return {
    billLines: bill.length,
    ledgerLines: ofDay.length,
    matched,
    billTotal: trades.reduce((sum, line) => sum + signed(line), 0),
    ledgerTotal: ofDay.reduce((sum, line) => sum + signed(line), 0),
    feeTotal: fees.length > 0 ? charged : lineFees,
    findings,
  };
}
