import { runSnapshotCheck } from '@market/shared/db';
import { verifyLedger } from './persistence/ledger-audit';

/**
 * `npm run wallet:verify`: proves the ledger on a live database (the wallet schema, read-only) and
 * exits 1 on any difference, 2 when it cannot check at all. It prints what the wallet's internal
 * route answers the back office's money check (`verifyLedger`, one snapshot), with the schema.
 */
runSnapshotCheck('wallet:verify', 'wallet', async (db, schema) => {
  const verification = await verifyLedger(db);
  process.stdout.write(`${JSON.stringify({ schema, ...verification }, null, 2)}\n`);
  return verification.differences.length === 0 ? 0 : 1;
});
