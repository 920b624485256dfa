import { Client } from 'pg';
import { z } from '@market/contracts';
import { baseEnvShape, loadConfig } from '../config';
import type { Queryable } from './sql';

/**
 * A command-line check of one service's schema on a live database (`npm run wallet:verify`,
 * `audit:verify`): the check reads one read-only snapshot, prints what it found and answers 0 when
 * everything holds or 1 on a break; the process exits with that, or with 2 when it cannot check at
 * all. `DB_SCHEMA` names another schema than the service's own.
 */
export function runSnapshotCheck(name: string, defaultSchema: string, check: (db: Queryable, schema: string) => Promise<0 | 1>): void {
  const run = async () => {
    const config = loadConfig({
      DATABASE_URL: baseEnvShape.DATABASE_URL,
      DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).default(defaultSchema),
    });
    const client = new Client({ connectionString: config.DATABASE_URL, options: `-c search_path=${config.DB_SCHEMA}` });
    await client.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const code = await check({ query: async (sql, params) => (await client.query(sql, params)).rows }, config.DB_SCHEMA);
      await client.query('COMMIT');
      return code;
    } finally {
      await client.end();
    }
  };
  run().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${name} could not check: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
