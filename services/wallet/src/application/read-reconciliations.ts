import type { listReconciliations, RouteQuery } from '@market/contracts';
import { isUuid } from '@market/shared/db';
import { NotFound } from '@market/shared/errors';
import { findingsOf, findRun, queryRuns } from '../persistence/reconciliation-repository';
import type { WalletDeps } from './deps';
import { toRunView } from './reconcile-day';

export async function listRuns(deps: WalletDeps, query: RouteQuery<typeof listReconciliations>) {
  const found = await queryRuns(deps.db, query);
  return { items: found.items.map(toRunView), next_cursor: found.next_cursor };
}

/** One run and its findings, both sides' references and amounts in fen. */
export async function readRun(deps: WalletDeps, id: string) {
  const run = isUuid(id) ? await findRun(deps.db, id) : null;
  if (!run) throw new NotFound('reconciliation not found');
  const findings = await findingsOf(deps.db, id);
  return {
    ...toRunView(run),
    items: findings.map((f) => ({
      id: f.id,
      kind: f.kind,
      line_kind: f.line_kind,
      reference: f.reference,
      provider_id: f.provider_id,
      bill_amount: f.bill_amount === null ? null : Number(f.bill_amount),
      ledger_amount: f.ledger_amount === null ? null : Number(f.ledger_amount),
    })),
  };
}
