/**
 * The three handles a service's code sees, so no service imports TypeORM. Repositories take
 * `Queryable` when they run anywhere, `Tx` when they must run inside a transaction (they lock rows
 * or write an event with them), and a use case holds a `Db` and opens one transaction on it.
 */

/** Anything SQL runs on: the service's `Db` outside a transaction or a `Tx` inside one. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/**
 * The handle of one open transaction. Structurally a `Queryable`; the name says the function
 * expects a transaction, and `EventWriter.publish` refuses at run time a handle that is not one.
 */
export type Tx = Queryable;

/** What a service holds: queries outside a transaction, and `transaction`, which commits when `work` resolves and rolls back when it throws. */
export interface Db extends Queryable {
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
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

/** The parameters of one statement, numbered as they are added: `param(value)` adds one and answers its placeholder. */
export function sqlParams(initial: readonly unknown[] = []) {
  const params = [...initial];
  return { params, param: (value: unknown) => `$${params.push(value)}` };
}
