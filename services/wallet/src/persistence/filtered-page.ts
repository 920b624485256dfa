import { keysetPage, sqlParams, type KeysetOrder, type KeysetPageResult, type Queryable } from '@market/shared/db';

/** Which page of a list is asked for. */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

/** uuid v7 ids grow with time: newest first by id alone is a stable, unique order. */
export const NEWEST_ID_FIRST: KeysetOrder = { keys: [{ column: 'id', type: 'uuid' }], direction: 'desc' };

/**
 * One page of `select` (`SELECT … FROM <table>`, no WHERE) narrowed by the list's filters: each
 * column of `equal` given a value must equal it (one given none, or an empty string, is not a
 * filter), beside the list's own `always` condition; newest id first unless the list orders otherwise.
 * The columns are the repository's own names, never a caller's.
 */
export function filteredPage<Row extends object>(
  db: Queryable,
  select: string,
  equal: Record<string, string | undefined>,
  page: PageRequest & { orderBy?: KeysetOrder; always?: string },
): Promise<KeysetPageResult<Row>> {
  const { params, param } = sqlParams();
  const filters = Object.entries(equal).flatMap(([column, value]) => (value ? [`${column} = ${param(value)}`] : []));
  return keysetPage<Row>(db, {
    query: `${select} WHERE ${[page.always ?? 'true', ...filters].join(' AND ')}`,
    params,
    orderBy: page.orderBy ?? NEWEST_ID_FIRST,
    limit: page.limit,
    cursor: page.cursor,
  });
}
