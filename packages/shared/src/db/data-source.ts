import 'reflect-metadata';
import { Client, type ClientBase } from 'pg';
import { DataSource, type MixedList, type EntitySchema } from 'typeorm';
import { PooledClient, READ_ONLY_SQLSTATE } from './pooled-client';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface DataSourceOptions {
  url: string;
  schema: string;
  entities: MixedList<Function | string | EntitySchema>;
  migrations: MixedList<Function | string>;
  poolSize?: number;
  /** waiting for a new connection or a free one from the pool */
  connectTimeoutMs?: number;
  /** the server cancels a statement running longer */
  statementTimeoutMs?: number;
  /** the server ends a session left idle inside a transaction longer, releasing its locks */
  idleInTransactionTimeoutMs?: number;
  /** told of a connection's error that nobody else was listening for (the connection is discarded either way) */
  onConnectionError?: (err: Error) => void;
}

/** Defaults of the service environment (run.ts) and of data sources created without it (CLI, tests). */
export const DB_TIMEOUT_DEFAULTS = {
  connectTimeoutMs: 5000,
  statementTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 15_000,
};

/**
 * A service's connection: every session's search_path is the service's own schema, so migrations
 * and queries name tables without a schema and can never reach another service's tables by accident.
 * Every wait is bounded (ADR 0012): a request never queues for a connection, a statement or a
 * stuck transaction's locks longer than the timeouts. The schema is the application_name, so
 * operators (and the fault tests) can tell each service's sessions apart in pg_stat_activity.
 */
export function createDataSource(opts: DataSourceOptions): DataSource {
  if (!SCHEMA_NAME.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    migrations: opts.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      // the same statements in fewer round trips: prepared once per connection, BEGIN sent with the
      // transaction's first statement (ADR 0075, ADR 0076)
      Client: PooledClient,
      max: opts.poolSize ?? 10,
      options: `-c search_path=${opts.schema}`,
      application_name: opts.schema,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? DB_TIMEOUT_DEFAULTS.connectTimeoutMs,
      statement_timeout: opts.statementTimeoutMs ?? DB_TIMEOUT_DEFAULTS.statementTimeoutMs,
      idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs ?? DB_TIMEOUT_DEFAULTS.idleInTransactionTimeoutMs,
      // A session the server ends (restart, pg_terminate_backend) can raise a second 'error' after
      // TypeORM has released the connection and dropped its listener; an 'error' event with no
      // listener ends the process, so every pooled connection keeps one for its whole life.
      // The pool awaits this before handing the connection out, so a refusal here is the caller's error.
      onConnect: async (client: ClientBase) => {
        client.on('error', (err: Error) => opts.onConnectionError?.(err));
        await refuseReadOnlyServer(client);
      },
    },
  });
}

/**
 * After a failover the service's address can still lead to a server that takes no writes for a
 * while: the old primary, now a standby, until DNS or the pooler moves; a standby promoted late.
 * A connection there is of no use to a service, whose every use case may write, so it is refused
 * at connect with 25006 (the request answers 503 and the next one opens a connection again), and
 * one already open is ended when a statement on it meets 25006 (`PooledClient`), so the pool
 * replaces it rather than failing every write on it until the process restarts.
 */
async function refuseReadOnlyServer(client: ClientBase): Promise<void> {
  const { rows } = await client.query<{ read_only: boolean }>(`SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only`);
  if (rows[0]?.read_only) {
    throw Object.assign(new Error('the server takes no writes (a standby, or a primary demoted by a failover)'), { code: READ_ONLY_SQLSTATE });
  }
}

/** Creates the schema if this role may (development); a provisioned role already owns its schema. */
export async function initializeDataSource(dataSource: DataSource, schema: string) {
  await dataSource.initialize();
  // Replicas starting together take turns, on a lock held by a connection of its own (a pool of
  // one stays free for the work): the first creates the schema and runs the migrations, the next
  // finds them done.
  const lock = new Client({ connectionString: (dataSource.options as { url?: string }).url, connectionTimeoutMillis: DB_TIMEOUT_DEFAULTS.connectTimeoutMs });
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(hashtext($1))`, [`migrations:${schema}`]);
    const [{ exists }] = await dataSource.query(`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS exists`, [schema]);
    if (!exists) await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.end().catch(() => undefined);
  }
}
