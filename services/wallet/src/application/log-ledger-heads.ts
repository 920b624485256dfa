import { ledgerHeadsDigest } from '../persistence/ledger-chain';
import type { WalletDeps } from './deps';

/**
 * Writes the hash over every account's chain head to the log (ADR 0067). The log leaves the
 * database for the log store, so a ledger rewritten by someone who can write the database but not
 * the log store no longer matches the heads logged before the rewrite. Read from one snapshot, so
 * the heads are those of one moment.
 */
export async function logLedgerHeads(deps: Pick<WalletDeps, 'db' | 'log'>) {
  const anchor = await deps.db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return ledgerHeadsDigest(tx);
  });
  deps.log.info({ ledger_heads: anchor }, 'ledger chain heads');
  return anchor;
}
