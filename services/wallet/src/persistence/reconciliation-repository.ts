import { isUuid, type KeysetPageResult, type Queryable, type Tx } from '@market/shared/db';
import { v7 as uuidv7 } from 'uuid';
import type { Finding, FindingKindName, LedgerLine, LineKind, Reconciled } from '../domain/reconciliation';
import { columnArrays } from './column-arrays';
import { filteredPage, type PageRequest } from './filtered-page';

export interface RunRow {
  id: string;
  provider: string;
  day: string;
  status: 'clean' | 'findings';
  bill_lines: number;
  ledger_lines: number;
  matched: number;
  findings: number;
  bill_total: string;
  ledger_total: string;
  fee_total: string;
  created_at: Date;
}

export interface FindingRow {
  id: string;
  kind: FindingKindName;
  line_kind: LineKind;
  reference: string | null;
  provider_id: string | null;
  bill_amount: string | null;
  ledger_amount: string | null;
}

const RUN_COLUMNS = `id, provider, to_char(day, 'YYYY-MM-DD') AS day, status, bill_lines, ledger_lines, matched, findings, bill_total, ledger_total, fee_total, created_at`;

/** The ledger's movements with a provider: recharges credited, refunds returned, withdrawals paid out; `where` picks them per table. */
function movements(where: { payments: string; refunds: string; withdrawals: string }) {
  return `SELECT 'payment' AS kind, id::text AS reference, amount::text FROM payments WHERE provider = $1 AND status = 'succeeded' AND ${where.payments}
          UNION ALL
          SELECT 'refund', id::text, amount::text FROM refunds WHERE provider = $1 AND status = 'refunded' AND ${where.refunds}
          UNION ALL
          SELECT 'transfer', id::text, amount::text FROM withdrawals WHERE channel = $1 AND status = 'paid' AND ${where.withdrawals}`;
}

const toLines = (rows: Array<{ kind: LedgerLine['kind']; reference: string; amount: string }>): LedgerLine[] =>
  rows.map((r) => ({ kind: r.kind, reference: r.reference, amount: Number(r.amount) }));

/** The ledger's movements with `provider` whose provider-side time (paid, refunded) falls in [start, end). */
export async function ledgerLinesBetween(db: Queryable, provider: string, start: Date, end: Date): Promise<LedgerLine[]> {
  const sql = movements({
    payments: 'paid_at >= $2 AND paid_at < $3',
    refunds: 'refunded_at >= $2 AND refunded_at < $3',
    withdrawals: 'paid_at >= $2 AND paid_at < $3',
  });
  return toLines(await db.query(sql, [provider, start, end]));
}

/** The ledger's movements with `provider` for these references, whatever their day. */
export async function ledgerLinesFor(db: Queryable, provider: string, references: string[]): Promise<LedgerLine[]> {
  const ids = [...new Set(references.filter(isUuid))];
  if (ids.length === 0) return [];
  const sql = movements({ payments: 'id = ANY($2::uuid[])', refunds: 'id = ANY($2::uuid[])', withdrawals: 'id = ANY($2::uuid[])' });
  return toLines(await db.query(sql, [provider, ids]));
}

export async function findRunOf(db: Queryable, provider: string, day: string): Promise<RunRow | null> {
  const rows: RunRow[] = await db.query(`SELECT ${RUN_COLUMNS} FROM reconciliation_runs WHERE provider = $1 AND day = $2`, [provider, day]);
  return rows[0] ?? null;
}

export async function findRun(db: Queryable, id: string): Promise<RunRow | null> {
  const rows: RunRow[] = await db.query(`SELECT ${RUN_COLUMNS} FROM reconciliation_runs WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findingsOf(db: Queryable, runId: string): Promise<FindingRow[]> {
  return db.query(
    `SELECT id, kind, line_kind, reference, provider_id, bill_amount, ledger_amount FROM reconciliation_findings WHERE run_id = $1 ORDER BY id`,
    [runId],
  );
}

/**
 * Stores a run and its findings, once per (provider, day): null when that day was stored already
 * (a racing run won), and nothing is written.
 */
export async function insertRun(tx: Tx, provider: string, day: string, result: Reconciled, now: Date): Promise<RunRow | null> {
  const id = uuidv7();
  const [row]: RunRow[] = await tx.query(
    `INSERT INTO reconciliation_runs (id, provider, day, status, bill_lines, ledger_lines, matched, findings, bill_total, ledger_total, fee_total, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (provider, day) DO NOTHING RETURNING ${RUN_COLUMNS}`,
    [
      id,
      provider,
      day,
      result.findings.length > 0 ? 'findings' : 'clean',
      result.billLines,
      result.ledgerLines,
      result.matched,
      result.findings.length,
      result.billTotal,
      result.ledgerTotal,
      result.feeTotal,
      now,
    ],
  );
  if (!row) return null;
  await insertFindings(tx, id, result.findings);
  return row;
}

async function insertFindings(tx: Tx, runId: string, findings: Finding[]) {
  if (findings.length === 0) return;
  await tx.query(
    `INSERT INTO reconciliation_findings (id, run_id, kind, line_kind, reference, provider_id, bill_amount, ledger_amount)
     SELECT id, $2, kind, line_kind, reference, provider_id, bill_amount, ledger_amount
     FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
       AS x(id, kind, line_kind, reference, provider_id, bill_amount, ledger_amount)`,
    [
      findings.map(() => uuidv7()),
      runId,
      ...columnArrays(findings, ['kind', 'lineKind', 'reference', 'providerId', 'billAmount', 'ledgerAmount']),
    ],
  );
}

export function queryRuns(db: Queryable, q: PageRequest & { provider?: string; status?: string }): Promise<KeysetPageResult<RunRow>> {
  return filteredPage<RunRow>(db, `SELECT ${RUN_COLUMNS} FROM reconciliation_runs`, { provider: q.provider, status: q.status }, q);
}
