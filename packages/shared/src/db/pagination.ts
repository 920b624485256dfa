import { sqlParams, type Queryable } from './sql';

/**
 * Keyset pagination, the one way every list pages (docs/rules.md §1: `{ items, next_cursor }`): a page
 * is the rows after a position in a fixed order, and the cursor is that position. Cursors are
 * opaque to clients but not secret, so anything in one is checked here before it nears SQL.
 */

/** Types a sort key may have; each travels in the cursor as the text Postgres prints for it. */
export type KeysetType = 'timestamptz' | 'integer' | 'bigint' | 'uuid';

export interface KeysetOrder {
  /**
   * Output columns of the query, most significant first; none may be NULL and together they
   * must be unique (end with the id), or rows would repeat or go missing between pages.
   */
  keys: ReadonlyArray<{ column: string; type: KeysetType }>;
  direction: 'asc' | 'desc';
}

/** The order of most lists: newest first, the id settling rows created in the same instant. */
export const NEWEST_FIRST: KeysetOrder = {
  keys: [
    { column: 'created_at', type: 'timestamptz' },
    { column: 'id', type: 'uuid' },
  ],
  direction: 'desc',
};

/** A cursor that is not one this list handed out; the HTTP layer answers 400 VALIDATION_FAILED. */
export class InvalidCursorError extends Error {
  constructor() {
    super('cursor is not valid for this list');
    this.name = 'InvalidCursorError';
  }
}

export interface KeysetPageResult<Item> {
  items: Item[];
  next_cursor: string | null;
}

const COLUMN = /^[a-z_][a-z0-9_]*$/;
const TIMESTAMP = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INT4 = { digits: /^-?\d{1,10}$/, min: -(2n ** 31n), max: 2n ** 31n - 1n };
const INT8 = { digits: /^-?\d{1,19}$/, min: -(2n ** 63n), max: 2n ** 63n - 1n };

function inRange(text: string, bounds: typeof INT4): boolean {
  if (!bounds.digits.test(text)) return false;
  const value = BigInt(text);
  return value >= bounds.min && value <= bounds.max;
}

/** Whether Postgres takes `text` as a value of `type`: exactly what it printed, nothing it would refuse. */
function acceptable(type: KeysetType, text: string): boolean {
  switch (type) {
    case 'timestamptz': {
      const match = TIMESTAMP.exec(text);
      if (!match || match[1] === '0000') return false;
      // the round trip refuses what the pattern lets through, such as February 30th
      const millis = `${text.slice(0, 23)}Z`;
      const at = new Date(millis);
      return !Number.isNaN(at.getTime()) && at.toISOString() === millis;
    }
    case 'integer':
      return inRange(text, INT4);
    case 'bigint':
      return inRange(text, INT8);
    case 'uuid':
      return UUID.test(text);
  }
}

/** Microseconds included: a millisecond cursor would skip rows created within the same millisecond. */
function printed(column: string, type: KeysetType): string {
  if (type === 'timestamptz') return `to_char(page.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  return `page.${column}::text`;
}

/** Ties a cursor to its order, so a cursor of one sort cannot be replayed against another. */
function signature(order: KeysetOrder): string {
  return `${order.keys.map((k) => k.column).join(',')}:${order.direction}`;
}

export function encodeCursor(order: KeysetOrder, position: string[]): string {
  return Buffer.from(JSON.stringify({ o: signature(order), k: position })).toString('base64url');
}

/** The position a cursor of `order` stands for; no cursor is the start. Throws InvalidCursorError. */
export function decodeCursor(order: KeysetOrder, cursor: string | undefined): string[] | null {
  if (cursor === undefined) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  const { o, k } = (decoded ?? {}) as { o?: unknown; k?: unknown };
  if (
    o !== signature(order) ||
    !Array.isArray(k) ||
    k.length !== order.keys.length ||
    !order.keys.every(({ type }, i) => typeof k[i] === 'string' && acceptable(type, k[i]))
  ) {
    throw new InvalidCursorError();
  }
  return k as string[];
}

/** A WHERE condition that takes its own parameters: `param(value)` adds one and answers its placeholder. */
export type Condition = (param: (value: unknown) => string) => string;

export interface KeysetPageRequest {
  /** `SELECT … FROM … [WHERE …]` without ORDER BY or LIMIT; `$n` refer to `params` */
  query: string;
  params?: unknown[];
  orderBy: KeysetOrder;
  limit: number;
  cursor: string | undefined;
  /**
   * A filter whose selectivity the planner cannot know (a text search: one value matches most
   * rows, another none). Filtering the whole query is cheap when matches are rare and an index
   * finds them, but slow when they are common (every match is fetched and sorted); walking the
   * order's index and filtering as it goes is the reverse. So the page is first sought among the
   * next `window` rows in order, and only when those hold less than a page is the whole query
   * filtered, with `indexed` added: a condition implied by `filter` that an index serves.
   */
  sparse?: { filter: Condition; indexed?: Condition; window: number };
}

const POSITION = 'keyset_position__';

/**
 * One page of `query` in `orderBy`, starting after `cursor`. The query runs as a subquery, which
 * Postgres flattens, so its filters and the keyset condition meet the same index as if written
 * together. The cursor is checked before anything is sent to the database.
 */
export async function keysetPage<Row extends object>(db: Queryable, request: KeysetPageRequest): Promise<KeysetPageResult<Row>> {
  const { orderBy, limit, sparse } = request;
  for (const { column } of orderBy.keys) {
    if (!COLUMN.test(column)) throw new Error(`keyset column ${JSON.stringify(column)} is not a plain column name`);
  }
  // Written into the SQL rather than sent as parameters, so both queries of a sparse page take the same parameters.
  for (const count of [limit, sparse?.window ?? 1]) {
    if (!Number.isSafeInteger(count) || count < 1) throw new Error(`page sizes must be positive integers, not ${count}`);
  }
  const after = decodeCursor(orderBy, request.cursor);
  const { params, param } = sqlParams(request.params);
  const columns = orderBy.keys.map(({ column }) => `page.${column}`);
  const keyset = after
    ? `(${columns.join(', ')}) ${orderBy.direction === 'desc' ? '<' : '>'} (${orderBy.keys
        .map(({ type }, i) => `${param(after[i])}::${type}`)
        .join(', ')})`
    : undefined;
  const direction = orderBy.direction === 'desc' ? 'DESC' : 'ASC';
  const order = `ORDER BY ${columns.map((c) => `${c} ${direction}`).join(', ')}`;
  const position = `ARRAY[${orderBy.keys.map(({ column, type }) => printed(column, type)).join(', ')}] AS ${POSITION}`;
  const select = (from: string, conditions: Array<string | undefined>, rowLimit: number) => {
    const present = conditions.filter((c): c is string => c !== undefined);
    return `SELECT page.*, ${position} FROM ${from} ${present.length ? `WHERE ${present.join(' AND ')}` : ''} ${order} LIMIT ${rowLimit}`;
  };
  const whole = `(${request.query}) AS page`;
  // Each query gets the parameters its own conditions add, after the query's and the keyset's.
  const run = (from: string, conditions: Array<string | Condition | undefined>, rowLimit: number): Promise<Found> => {
    const statement = sqlParams(params);
    const written = conditions.map((c) => (typeof c === 'function' ? c(statement.param) : c));
    return db.query(select(from, written, rowLimit), statement.params);
  };
  type Found = Array<Row & { [POSITION]: string[] }>;
  let rows: Found;
  if (sparse) {
    const window = `(SELECT page.* FROM ${whole} ${keyset ? `WHERE ${keyset}` : ''} ${order} LIMIT ${sparse.window}) AS page`;
    rows = await run(window, [sparse.filter], limit + 1);
    if (rows.length <= limit) rows = await run(whole, [keyset, sparse.filter, sparse.indexed], limit + 1);
  } else {
    rows = await run(whole, [keyset], limit + 1);
  }
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const items = pageRows.map(({ [POSITION]: _position, ...row }) => row as unknown as Row);
  const last = pageRows[pageRows.length - 1];
  return { items, next_cursor: hasMore && last ? encodeCursor(orderBy, last[POSITION]) : null };
}
