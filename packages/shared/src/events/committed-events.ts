import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { EventData, EventType } from '@market/contracts';
import type { Tx } from '../db/sql';
import type { DomainEvent } from './envelope';

export type CommittedEventListener<T extends EventType> = (data: EventData<T>, event: DomainEvent<T>) => void;

/**
 * Tells listeners of the events a transaction wrote once that transaction has committed (never for
 * one rolled back): business counters count what happened, not what was attempted. The events of
 * an open transaction wait on its query runner.
 */
export class CommittedEvents {
  private readonly pending = new WeakMap<QueryRunner, DomainEvent[]>();
  private readonly listeners = new Map<EventType, Array<CommittedEventListener<any>>>();

  constructor(dataSource: DataSource) {
    dataSource.subscribers.push({
      afterTransactionCommit: ({ queryRunner }) => this.flush(queryRunner),
      afterTransactionRollback: ({ queryRunner }) => {
        this.pending.delete(queryRunner);
      },
    });
  }

  on<T extends EventType>(type: T, listener: CommittedEventListener<T>) {
    const own = this.listeners.get(type) ?? [];
    own.push(listener);
    this.listeners.set(type, own);
  }

  /** Called by the event writer for each event written inside `tx`, or committed already (null). */
  written(tx: Tx | null, event: DomainEvent) {
    if (tx === null) return this.tell(event);
    const runner = (tx as Partial<EntityManager>).queryRunner;
    if (!runner || !this.listeners.has(event.type)) return;
    const own = this.pending.get(runner) ?? [];
    own.push(event);
    this.pending.set(runner, own);
  }

  private flush(runner: QueryRunner) {
    const events = this.pending.get(runner);
    if (!events) return;
    this.pending.delete(runner);
    for (const event of events) this.tell(event);
  }

  private tell(event: DomainEvent) {
    for (const listener of this.listeners.get(event.type) ?? []) listener(event.data, event);
  }
}
