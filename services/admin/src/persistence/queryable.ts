/** A DataSource or a transaction's EntityManager: repositories run on either. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/** TypeORM answers an UPDATE or DELETE with `[rows, rowCount]` (anything else with the rows alone). */
export function updatedRows<T>(result: [T[], number]): T[] {
  return result[0];
}
