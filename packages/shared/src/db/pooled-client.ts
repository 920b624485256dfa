import { createHash } from 'node:crypto';
import { Client } from 'pg';

/**
 * Distinct statements one connection keeps prepared. The hot paths send a few dozen; a statement
 * whose text varies with its input (an IN list) would otherwise fill the server's memory, so past
 * this a new text goes unnamed, parsed and planned each time as before.
 */
export const MAX_PREPARED_PER_CONNECTION = 256;

/** texts longer than this are rare, built once (a report) and not worth a slot */
const MAX_PREPARED_TEXT = 8_000;

/** the name of a text, kept for the process: the same text is prepared on every connection */
const names = new Map<string, string>();
const MAX_NAMES = 4_096;

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `p${createHash('sha1').update(text).digest('base64url')}`;
    if (names.size < MAX_NAMES) names.set(text, name);
  }
  return name;
}

/**
 * SQLSTATEs after which a connection's prepared statements are no use: 26000, the server no longer
 * has one (a pooler reset the session); 0A000, "cached plan must not change result type", a table
 * a statement reads changed its columns under it (a migration of a newer release). Postgres would
 * answer every later use of that statement the same, so the connection is ended and the pool opens
 * a fresh one: one statement fails, as on a lost connection, and the next is parsed anew.
 */
const STALE_PREPARED_SQLSTATES = new Set(['26000', '0A000']);

/**
 * pg's Client with every parameterised statement sent as a named prepared statement (ADR 0075): the
 * server parses and plans a text once per connection, and each later use is only bound and run. The
 * same SQL travels with the same values: the answers and the errors are the unnamed statement's.
 * Statements without parameters (BEGIN, COMMIT, DDL, migrations) go as simple queries, as before.
 */
export class PreparingClient extends Client {
  private readonly prepared = new Set<string>();

  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    (this as unknown as { connection: { on(event: 'errorMessage', listener: (message: { code?: string }) => void): void } }).connection.on(
      'errorMessage',
      (message) => {
        if (message.code && STALE_PREPARED_SQLSTATES.has(message.code)) void this.end().catch(() => undefined);
      },
    );
  }

  // pg's overloads are many; this one narrows only (text, values, callback?) and passes every other form on
  override query(...args: any[]): any {
    const [text, values] = args;
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0 && text.length <= MAX_PREPARED_TEXT) {
      const name = nameOf(text);
      if (this.prepared.has(name) || this.prepared.size < MAX_PREPARED_PER_CONNECTION) {
        this.prepared.add(name);
        return (super.query as (...rest: unknown[]) => unknown)({ name, text }, ...args.slice(1));
      }
    }
    return (super.query as (...rest: unknown[]) => unknown)(...args);
  }
}
