/** A row's `fields` as the contracts show times: ISO strings, and null for a time not set yet. */
export function isoTimes<Row, Field extends keyof Row>(row: Row, fields: readonly Field[]): { [F in Field]: Row[F] extends Date ? string : string | null } {
  return Object.fromEntries(fields.map((field) => [field, (row[field] as Date | null)?.toISOString() ?? null])) as { [F in Field]: Row[F] extends Date ? string : string | null };
}
