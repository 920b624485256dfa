import type { Logger } from 'pino';
import { updateReturning, type Queryable } from '../db/sql';
import { sealedAt, type SealedColumn, type SecretBox } from './secret-box';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const BATCH = 200;

/**
 * Binds every value of `columns` still in the old unbound format to its row: a start-up step of
 * the owning service, run before it serves. Each row is rewritten only if it still holds the value
 * read, so instances starting together, or writing meanwhile, never lose a newer value. A value
 * that does not open (no key for it, damaged) is left as it is and reported by row id.
 */
export async function resealLegacySecrets(db: Queryable, box: SecretBox, columns: SealedColumn[], log: Logger): Promise<number> {
  let resealed = 0;
  for (const sealed of columns) {
    const { table, column, idColumn } = sealed;
    for (const name of [table, column, idColumn]) if (!IDENTIFIER.test(name)) throw new Error(`not a plain identifier: ${name}`);
    const unopened: string[] = [];
    let after: string | null = null;
    for (;;) {
      const rows: Array<{ id: string; value: string }> = await db.query(
        `SELECT ${idColumn}::text AS id, ${column} AS value FROM ${table}
         WHERE ${column} LIKE 'v1.%' AND ($1::text IS NULL OR ${idColumn} > $2) ORDER BY ${idColumn} LIMIT ${BATCH}`,
        [after, after],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        after = row.id;
        let bound: string;
        try {
          bound = box.resealLegacy(row.value, sealedAt(sealed, row.id));
        } catch {
          unopened.push(row.id);
          continue;
        }
        const updated = await updateReturning(
          db,
          `UPDATE ${table} SET ${column} = $2 WHERE ${idColumn} = $1 AND ${column} = $3 RETURNING 1`,
          [row.id, bound, row.value],
        );
        resealed += updated.length;
      }
    }
    if (unopened.length > 0) {
      log.error({ table, column, count: unopened.length, ids: unopened.slice(0, 20) }, 'old-format sealed values that do not open were left unbound');
    }
  }
  if (resealed > 0) log.info({ resealed }, 'old-format sealed values bound to their rows');
  return resealed;
}
