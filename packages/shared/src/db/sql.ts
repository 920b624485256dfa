/** A DataSource or a transaction's EntityManager: repositories run on either. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/**
 * The rows of an `UPDATE … RETURNING` or `DELETE … RETURNING`. TypeORM answers those with
 * `[rows, rowCount]` (anything else with the rows alone), so reading them as rows would make every
 * conditional update look like it matched.
 */
export async function updateReturning<Row>(db: Queryable, sql: string, params: unknown[]): Promise<Row[]> {
  const [rows] = (await db.query(sql, params)) as [Row[], number];
  return rows;
}
