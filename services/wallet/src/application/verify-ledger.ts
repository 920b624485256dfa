import { verifyLedger } from '../persistence/ledger-audit';
import type { WalletDeps } from './deps';

/**
 * The ledger verification for the back office's money check: the checks `npm run wallet:verify`
 * runs, read from one read-only snapshot as the script reads them, so both report the same.
 */
export async function verifyWalletLedger(deps: Pick<WalletDeps, 'db'>) {
  return deps.db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return verifyLedger(tx);
  });
}
