import { createHash } from 'node:crypto';

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

/** The statements one connection has prepared, and the name a text goes under on it (ADR 0075). */
export class PreparedStatements {
  private readonly prepared = new Set<string>();

  /** the text's statement name on this connection, or undefined: it goes unnamed */
  nameFor(text: string): string | undefined {
    if (text.length > MAX_PREPARED_TEXT) return undefined;
    const name = nameOf(text);
    if (!this.prepared.has(name)) {
      if (this.prepared.size >= MAX_PREPARED_PER_CONNECTION) return undefined;
      this.prepared.add(name);
    }
    return name;
  }
}

/**
 * SQLSTATEs after which a connection's prepared statements are no use: 26000, the server no longer
 * has one (a pooler reset the session); 0A000, "cached plan must not change result type", a table
 * a statement reads changed its columns under it (a migration of a newer release). Postgres would
 * answer every later use of that statement the same, so the connection is ended and the pool opens
 * a fresh one: one statement fails, as on a lost connection, and the next is parsed anew.
 */
export const STALE_PREPARED_SQLSTATES: ReadonlySet<string> = new Set(['26000', '0A000']);
