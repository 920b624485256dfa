import { Client } from 'pg';
import { z } from '@market/contracts';
import { baseEnvShape, loadConfig } from '@market/shared/config';
import { verifyAuditChains } from '../persistence/audit-chain';

/**
 * `npm run audit:verify`: recomputes the audit log's hash chains on a live database (the admin
 * schema, one read-only snapshot), prints each chain's first break (the entry altered, removed or
 * inserted, and its chain) and the hash over every head, and exits 1 on a break, 2 when it cannot
 * check. What `POST /api/admin/audit-logs/verify` answers.
 */
async function main(): Promise<number> {
  const config = loadConfig({
    DATABASE_URL: baseEnvShape.DATABASE_URL,
    DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).default('admin'),
  });
  const client = new Client({ connectionString: config.DATABASE_URL, options: `-c search_path=${config.DB_SCHEMA}` });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const found = await verifyAuditChains({ query: async (sql, params) => (await client.query(sql, params)).rows });
    await client.query('COMMIT');
    for (const b of found.breaks) process.stdout.write(`BROKEN chain ${b.chain}: ${b.problem}${b.entry ? ` at entry ${b.entry}` : ''}\n`);
    process.stdout.write(
      `audit:verify: ${found.breaks.length === 0 ? 'every chain holds' : `${found.breaks.length} chain(s) broken`} ` +
        `(${found.chains} chains, ${found.entries} entries; heads ${found.head_hash})\n`,
    );
    return found.breaks.length === 0 ? 0 : 1;
  } finally {
    await client.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`audit:verify could not check: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
