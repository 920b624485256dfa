import type { Queryable } from '@market/shared/db';

export interface MismatchKey {
  check: string;
  id: string;
  fen: number;
}

/**
 * Remembers the mismatches found now and forgets the ones no longer found; answers those that were
 * not remembered yet (one row per check and subject: parallel runs of the job raise each once).
 */
export async function rememberMismatches(tx: Queryable, found: MismatchKey[], now: Date): Promise<MismatchKey[]> {
  const checks = found.map((m) => m.check);
  const ids = found.map((m) => m.id);
  await tx.query(
    `DELETE FROM money_mismatches WHERE (check_name, subject_id) NOT IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [checks, ids],
  );
  const fresh: Array<{ check_name: string; subject_id: string }> = await tx.query(
    `INSERT INTO money_mismatches (check_name, subject_id, fen, raised_at)
     SELECT c, i, f, $4 FROM unnest($1::text[], $2::text[], $3::bigint[]) AS m(c, i, f)
     ON CONFLICT (check_name, subject_id) DO NOTHING
     RETURNING check_name, subject_id`,
    [checks, ids, found.map((m) => m.fen), now],
  );
  const raised = new Set(fresh.map((r) => `${r.check_name}\u0000${r.subject_id}`));
  return found.filter((m) => raised.has(`${m.check}\u0000${m.id}`));
}
