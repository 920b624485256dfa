/**
 * The values of `rows`, one array per field of `fields` in that order: the parameters of an
 * `unnest($1::…[], $2::…[], …)` that writes every row in one statement.
 */
export function columnArrays<Row, Field extends keyof Row>(rows: readonly Row[], fields: readonly Field[]): Array<Array<Row[Field]>> {
  return fields.map((field) => rows.map((row) => row[field]));
}
