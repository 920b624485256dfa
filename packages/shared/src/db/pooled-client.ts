import { Client, Query } from 'pg';
import { BeginWithStatement, type PgStatement } from './begin-with-statement';
import { PreparedStatements, STALE_PREPARED_SQLSTATES } from './prepared-statements';

type Callback = (err: Error | null, result?: unknown) => void;

/** TypeORM opens, ends and abandons a transaction with these texts, on its own (ADR 0076). */
const BEGIN = 'START TRANSACTION';
const ENDS = new Set(['COMMIT', 'ROLLBACK']);

/** What pg answers a statement without rows; TypeORM reads `rows` and `rowCount`. */
const answered = (command: string) => ({ command, rowCount: null, oid: null, rows: [], fields: [] });

const hasValues = (values: unknown): values is unknown[] => Array.isArray(values) && values.length > 0;

/** SQLSTATE read_only_sql_transaction: the server, or the session, takes no writes. */
export const READ_ONLY_SQLSTATE = '25006';

/**
 * SQLSTATEs after which the connection is of no use to a service: a server that takes no writes
 * (after a failover, data-source.ts), and statements it can no longer run as prepared.
 */
const CONNECTION_SPENT: ReadonlySet<string> = new Set([READ_ONLY_SQLSTATE, ...STALE_PREPARED_SQLSTATES]);

/**
 * The client every service's pool makes its connections with: the same SQL with the same values,
 * in fewer round trips, each of which costs a system call and a wake-up on both sides.
 * - Every parameterised statement is a named prepared statement (ADR 0075): Postgres parses and
 *   plans a text once per connection; later uses are only bound and run.
 * - A transaction's BEGIN goes with its first parameterised statement, in one write (ADR 0076):
 *   TypeORM's START TRANSACTION is answered at once and sent ahead of the next statement. A
 *   transaction that ends before any statement sends nothing at all; one whose next statement has
 *   no parameters (SET TRANSACTION, SAVEPOINT, DDL) sends the BEGIN on its own first, as before.
 * Statements without parameters go as simple queries, as before.
 */
export class PooledClient extends Client {
  private readonly statements = new PreparedStatements();
  /** TypeORM has opened a transaction whose BEGIN is not sent yet */
  private beginDeferred = false;
  private releaseToPool: ((...args: unknown[]) => unknown) | undefined;

  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    // pg's connection emits every error the server sends, whichever statement it answers. The
    // connection is ended at once, while the statement is still being told of its error, so it is
    // marked ending before anyone can release it: the pool then discards it instead of handing it
    // out again; the transaction's ROLLBACK fails as on a lost connection.
    (this as unknown as { connection: { on(event: 'errorMessage', listener: (message: { code?: string }) => void): void } }).connection.on(
      'errorMessage',
      (message) => {
        if (message.code && CONNECTION_SPENT.has(message.code)) void this.end().catch(() => undefined);
      },
    );
  }

  /**
   * pg-pool gives each checked-out client its `release`; a client back in the pool holds no deferred
   * BEGIN (nothing was sent for it, so there is nothing to end), whatever its last user did.
   */
  get release(): ((...args: unknown[]) => unknown) | undefined {
    return this.releaseToPool;
  }

  set release(release: ((...args: unknown[]) => unknown) | undefined) {
    this.releaseToPool =
      release &&
      ((...args: unknown[]) => {
        this.beginDeferred = false;
        return release(...args);
      });
  }

  // pg's overloads are many; this narrows the (text, values?, callback?) form TypeORM uses and passes every other on
  override query(...args: any[]): any {
    const [text] = args;
    if (typeof text !== 'string') return this.send(args);
    const callback: Callback | undefined = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined;
    const values: unknown = args[1] === callback ? undefined : args[1];
    if (!hasValues(values)) {
      if (text === BEGIN && !this.beginDeferred) {
        this.beginDeferred = true;
        return settle(Promise.resolve(answered('BEGIN')), callback);
      }
      if (this.beginDeferred) {
        this.beginDeferred = false;
        if (ENDS.has(text)) return settle(Promise.resolve(answered(text)), callback);
        return settle(
          this.send([BEGIN]).then(() => this.send(values === undefined ? [text] : [text, values])),
          callback,
        );
      }
      return this.send(args);
    }
    const name = this.statements.nameFor(text);
    const config = name ? { name, text } : { text };
    if (!this.beginDeferred) return this.send([config, ...args.slice(1)]);
    this.beginDeferred = false;
    return settle(
      new Promise((resolve, reject) => {
        const statement = new Query(config, values, (err: Error | undefined, result: unknown) => (err ? reject(err) : resolve(result)));
        this.send([new BeginWithStatement(statement as unknown as PgStatement)]);
      }),
      callback,
    );
  }

  private send(args: unknown[]): any {
    return (super.query as (...rest: unknown[]) => unknown)(...args);
  }
}

/** A promise's outcome to a node-style callback when one was given, else the promise. */
function settle(answer: Promise<unknown>, callback: Callback | undefined) {
  if (!callback) return answer;
  answer.then(
    (result) => callback(null, result),
    (err: Error) => callback(err),
  );
  return undefined;
}
