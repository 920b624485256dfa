import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { Queryable } from '../db/sql';

/**
 * How a commit that wrote outbox rows wakes the relays of this process (ADR 0079). Every service
 * process runs a relay beside its writers, and any relay of a schema may publish any of its rows,
 * so waking the writer's own relay is enough; a row written by another process (a replica, the
 * admin CLI) is found by that process's relay or by this one's poll. Waking in the process replaced
 * a NOTIFY per commit: Postgres signals every LISTENing backend of the database on each NOTIFY,
 * whatever its channel, and with a relay per service that cost more than the statements it woke.
 */
const relaysBySchema = new Map<string, Set<() => void>>();

/** The transactions still open that wrote outbox rows, and the schema they wrote to. */
const pending = new WeakMap<QueryRunner, Set<string>>();

/** The data sources whose commits are watched here (one subscriber each, added at its first write). */
const watched = new WeakSet<DataSource>();

/** Registers a relay's wake-up for `schema`; answers how to take it back. */
export function onOutboxCommitted(schema: string, wake: () => void): () => void {
  const own = relaysBySchema.get(schema) ?? new Set();
  own.add(wake);
  relaysBySchema.set(schema, own);
  return () => {
    own.delete(wake);
    if (own.size === 0 && relaysBySchema.get(schema) === own) relaysBySchema.delete(schema);
  };
}

/** Wakes the relays of `schema` now: rows written to its outbox have committed. */
export function outboxCommitted(schema: string): void {
  for (const wake of relaysBySchema.get(schema) ?? []) wake();
}

/**
 * Wakes the relays of `schema` when the transaction `tx` commits, and never if it rolls back. `tx`
 * is a TypeORM EntityManager underneath (the event writer has checked it holds a transaction).
 */
export function wakeRelaysAtCommit(tx: Queryable, schema: string): void {
  const { queryRunner, connection } = tx as Partial<EntityManager>;
  if (!queryRunner || !connection) return;
  watch(connection);
  const schemas = pending.get(queryRunner) ?? new Set<string>();
  schemas.add(schema);
  pending.set(queryRunner, schemas);
}

function watch(dataSource: DataSource) {
  if (watched.has(dataSource)) return;
  watched.add(dataSource);
  dataSource.subscribers.push({
    // a savepoint's release or rollback (a transaction within one) ends nothing: the outer one decides
    afterTransactionCommit: ({ queryRunner }) => {
      if (queryRunner.isTransactionActive) return;
      const schemas = pending.get(queryRunner);
      if (!schemas) return;
      pending.delete(queryRunner);
      for (const schema of schemas) outboxCommitted(schema);
    },
    afterTransactionRollback: ({ queryRunner }) => {
      if (!queryRunner.isTransactionActive) pending.delete(queryRunner);
    },
  });
}
