/**
 * The record `no` a simulator made (a trade, an order, a transfer, a refund), as a test asks about
 * it or moves it on: a test naming one the simulator never made is mistaken, and told at once.
 */
export function recordOf<Row>(records: ReadonlyMap<string, Row>, what: string, no: string): Row {
  const record = records.get(no);
  if (!record) throw new Error(`no ${what} ${no}`);
  return record;
}

/** The record `no`, which a test moves on from the state `from` (`state` reads it); in any other state the test is told at once. */
export function recordIn<Row>(records: ReadonlyMap<string, Row>, what: string, no: string, state: (record: Row) => string, from: string): Row {
  const record = recordOf(records, what, no);
  if (state(record) !== from) throw new Error(`${what} ${no} is ${state(record)}`);
  return record;
}
