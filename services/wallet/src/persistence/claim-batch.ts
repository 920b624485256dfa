import { sqlParams, updateReturning, type Queryable } from '@market/shared/db';

/**
 * Claims up to `limit` rows of `table` that `claim.where` picks, first in `claim.orderBy`, writing
 * `claim.set` to them in the same statement, and answers their ids: replicas skip each other's rows
 * (SKIP LOCKED), and no lock is held once the claim returns. `$n` in the clauses are `params`.
 */
export async function claimBatch(
  db: Queryable,
  table: string,
  claim: { set: string; where: string; orderBy: string },
  params: unknown[],
  limit: number,
): Promise<string[]> {
  const statement = sqlParams(params);
  const rows = await updateReturning<{ id: string }>(
    db,
    `UPDATE ${table} SET ${claim.set} WHERE id IN (
       SELECT id FROM ${table} WHERE ${claim.where}
       ORDER BY ${claim.orderBy} LIMIT ${statement.param(limit)} FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    statement.params,
  );
  return rows.map((r) => r.id);
}
