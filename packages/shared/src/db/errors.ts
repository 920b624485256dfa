/**
 * SQLSTATEs that say "not now" rather than "wrong query": the connection failed (class 08), the
 * server is short of resources (53), shutting down, restarting or ended the session (57P0x), a
 * timeout of ours fired (57014 statement timeout, 25P03 idle in transaction), or the server takes
 * no writes (25006: a standby, or a primary a failover demoted, still behind the address; the
 * connection is replaced, see data-source.ts). Retrying later can succeed, so the client is told
 * 503, not 500, and the inbox retries an event. No use case writes in a read-only transaction of
 * its own (the ledger check only reads), so 25006 never hides a bug of ours.
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0)|^(57014|25P03|25006)$/;

/** Socket failures under pg, which carry Node's errno code instead of a SQLSTATE. */
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** pg and pg-pool report a lost or unobtainable connection with a plain Error and one of these messages. */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/;

/** TypeORM's errors for a query on a transaction whose connection is gone (its errors' `name` is the class name). */
const RELEASED_RUNNER_ERRORS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

interface DriverErrorFields {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  constraint?: unknown;
  table?: unknown;
}

/** Whether `err` says Postgres is unreachable or gave up waiting, as opposed to a fault in our SQL or data. */
export function isDatabaseUnavailable(err: unknown): boolean {
  // TypeORM releases a transaction's connection when the connection fails, and the transaction's
  // next query (or its COMMIT) throws one of these. (Using a manager after its transaction ended
  // throws them too, but such a bug fails every time, in the tests, not only when a connection drops.)
  // Matched by name, not class, so the HTTP and logging layers (the gateway's too) never load TypeORM.
  if (err instanceof Error && RELEASED_RUNNER_ERRORS.has(err.name)) return true;
  for (let e = err as DriverErrorFields | undefined, depth = 0; e && depth < 3; e = e.driverError as DriverErrorFields, depth++) {
    if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  }
  return false;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * What of a database error may be logged: its SQLSTATE, constraint and table, and where it was
 * thrown. Not the message, the query or its parameters, nor the driver's detail, which quote row
 * values (phones, hashes, names); a lost connection's message quotes none and is kept. Null for
 * anything that is not a database error.
 */
export function databaseErrorForLog(err: unknown): Record<string, unknown> | null {
  if (!(err instanceof Error)) return null;
  const e = err as DriverErrorFields;
  const driver = (e.driverError ?? e) as DriverErrorFields;
  // TypeORM wraps every failed query (with its parameters) around the driver's error; pg's own
  // errors from the server carry a SQLSTATE and a severity.
  const fromDatabase = e.driverError !== undefined || (typeof e.code === 'string' && SQLSTATE.test(e.code) && 'severity' in e);
  const unavailable = isDatabaseUnavailable(err);
  if (!fromDatabase && !unavailable) return null;
  const frames = err.stack?.split('\n').filter((line) => line.startsWith('    at '));
  return {
    type: err.name,
    code: driver.code,
    ...(typeof driver.constraint === 'string' ? { constraint: driver.constraint } : {}),
    ...(typeof driver.table === 'string' ? { table: driver.table } : {}),
    ...(unavailable && typeof driver.message === 'string' ? { message: driver.message } : {}),
    ...(frames?.length ? { stack: frames.join('\n') } : {}),
  };
}
