import { sqlParams, updateReturning, type Tx } from '@market/shared/db';

/**
 * Writes `change` to the `noun` `id` of `table`, which the caller holds locked in state `from`,
 * and answers the row as `columns` reads it; throws when it is no longer in `from`.
 */
export async function updateInState<Row, State extends string>(
  tx: Tx,
  stored: { table: string; noun: string; columns: string },
  id: string,
  from: State,
  change: Partial<Record<string, unknown>>,
): Promise<Row> {
  const { params, param } = sqlParams([id, from]);
  const sets = Object.keys(change).map((k) => `${k} = ${param(change[k])}`);
  const [row] = await updateReturning<Row>(tx, `UPDATE ${stored.table} SET ${sets.join(', ')} WHERE id = $1 AND status = $2 RETURNING ${stored.columns}`, params);
  if (!row) throw new Error(`${stored.noun} ${id} is no longer ${from}`);
  return row;
}
