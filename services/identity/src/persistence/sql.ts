import type { EntityManager } from '@market/shared';

/** The rows of an `UPDATE ... RETURNING`: TypeORM answers UPDATE and DELETE with `[rows, rowCount]`. */
export async function updateReturning<Row>(manager: EntityManager, sql: string, params: unknown[]): Promise<Row[]> {
  const [rows] = (await manager.query(sql, params)) as [Row[], number];
  return rows;
}
