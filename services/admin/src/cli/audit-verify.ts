import { runSnapshotCheck } from '@market/shared/db';
import { verifyAuditChains } from '../persistence/audit-chain';

/**
 * `npm run audit:verify`: recomputes the audit log's hash chains on a live database (the admin
 * schema, one read-only snapshot), prints each chain's first break (the entry altered, removed or
 * inserted, and its chain) and the hash over every head, and exits 1 on a break, 2 when it cannot
 * check. What `POST /api/admin/audit-logs/verify` answers.
 */
runSnapshotCheck('audit:verify', 'admin', async (db) => {
  const found = await verifyAuditChains(db);
  for (const b of found.breaks) process.stdout.write(`BROKEN chain ${b.chain}: ${b.problem}${b.entry ? ` at entry ${b.entry}` : ''}\n`);
  process.stdout.write(
    `audit:verify: ${found.breaks.length === 0 ? 'every chain holds' : `${found.breaks.length} chain(s) broken`} ` +
      `(${found.chains} chains, ${found.entries} entries; heads ${found.head_hash})\n`,
  );
  return found.breaks.length === 0 ? 0 : 1;
});
