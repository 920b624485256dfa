import { Client } from 'pg';
import { z } from '@market/contracts';
import { baseEnvShape, loadConfig } from '@market/shared/config';
import { verifyLedger } from './persistence/ledger-audit';

/**
 * `npm run wallet:verify`: proves the ledger on a live database (the wallet schema, read-only) and
 * exits 1 on any difference, 2 when it cannot check at all. It prints what the wallet's internal
 * route answers the back office's money check (`verifyLedger`, one snapshot), with the schema.
 */
async function main() {
  const config = loadConfig({
    DATABASE_URL: baseEnvShape.DATABASE_URL,
    DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).default('wallet'),
  });
  const client = new Client({ connectionString: config.DATABASE_URL, options: `-c search_path=${config.DB_SCHEMA}` });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const verification = await verifyLedger({ query: async (sql, params) => (await client.query(sql, params)).rows });
    await client.query('COMMIT');
    process.stdout.write(`${JSON.stringify({ schema: config.DB_SCHEMA, ...verification }, null, 2)}\n`);
    return verification.differences.length === 0 ? 0 : 1;
  } finally {
    await client.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`wallet:verify could not check: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
