import type { ConfirmChannel } from 'amqplib';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { updateReturning, type Queryable, type Tx } from '../db/sql';
import { sqlMigration } from '../db/migration';
import type { Logger } from 'pino';
import type { ServiceName, EventData, EventType } from '@market/contracts';
import { currentRequestId } from '../context/request-context';
import { closeQuietly, withTimeout, type Bus } from './bus';
import { buildEvent, type DomainEvent } from './envelope';
import { producerExchange } from './topology';
import { SpanKind } from '@opentelemetry/api';
import { inSampledSpan } from '../tracing';
import { onOutboxCommitted, outboxCommitted, wakeRelaysAtCommit } from './relay-wakeups';

/** Outbox and inbox tables, created in every service's own schema by its first migration. */
export const CreateOutboxAndInbox1763800000000 = sqlMigration(
  'CreateOutboxAndInbox1763800000000',
  [
    `
      CREATE TABLE outbox (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`,
    `CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL`,
    `
      CREATE TABLE inbox (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        handled_at timestamptz NOT NULL DEFAULT now()
      )`,
  ],
  [
    `DROP TABLE inbox`,
    `DROP TABLE outbox`,
  ],
);

/** The outbox rows of one write, one statement (one round trip, ADR 0068). */
function outboxInsert(count: number): string {
  return `INSERT INTO outbox (id, type, payload) VALUES ${outboxRows(count, 0)}`;
}

/** `count` outbox rows' placeholders, after the first `offset` parameters. */
function outboxRows(count: number, offset: number): string {
  return Array.from({ length: count }, (_, i) => `($${offset + 3 * i + 1}::uuid, $${offset + 3 * i + 2}::text, $${offset + 3 * i + 3}::jsonb)`).join(', ');
}

/** A statement that answers rows (`INSERT … RETURNING`, `UPDATE … RETURNING`), with its parameters. */
export interface RowsStatement {
  text: string;
  params: readonly unknown[];
  /**
   * Writes that go with the change in the same statement: further common table expressions
   * (`name AS (INSERT … SELECT … FROM changed)`), which read the change's rows as `changed` and so
   * write nothing when it answers none; their parameters are numbered after the change's, in `params`.
   */
  alongside?: string;
}

/** Each event's outbox columns, in the order `outboxRows` numbers them. */
function outboxValues(events: readonly DomainEvent[]): unknown[] {
  return events.flatMap((event) => [event.id, event.type, JSON.stringify(event)]);
}

function assertInTransaction(tx: Tx, items: readonly EventToWrite[]) {
  // every Tx is a TypeORM EntityManager underneath; its query runner tells whether a transaction is open
  if (!(tx as Partial<EntityManager>).queryRunner?.isTransactionActive) {
    throw new Error(`event ${items.map((i) => i.type).join(', ')} must be written inside a transaction`);
  }
}

/** One event to write: its type and the data its contract asks for. */
export type EventToWrite = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** Writes events into the outbox inside the caller's transaction: they exist if and only if the change commits. */
export class EventWriter {
  constructor(
    private readonly producer: ServiceName,
    private readonly schema: string,
    /** told of each event written, with the transaction it was written in, or null when it is committed already (business counters after commit) */
    private readonly onWritten?: (tx: Tx | null, event: DomainEvent) => void,
    /** told when `commitAllWith` committed a change: a transaction no TypeORM subscriber sees (the kit's `afterEveryCommit`) */
    private readonly onCommittedAlone?: () => void,
  ) {}

  async publish<T extends EventType>(tx: Tx, type: T, data: EventData<T>): Promise<DomainEvent<T>> {
    const [event] = await this.publishAll(tx, [{ type, data } as EventToWrite]);
    return event as DomainEvent<T>;
  }

  /** Writes several events of one transaction in one statement, in the order given. */
  async publishAll(tx: Tx, items: readonly EventToWrite[]): Promise<DomainEvent[]> {
    assertInTransaction(tx, items);
    if (items.length === 0) return [];
    const events = this.build(items);
    await tx.query(outboxInsert(events.length), outboxValues(events));
    wakeRelaysAtCommit(tx, this.schema);
    for (const event of events) this.onWritten?.(tx, event);
    return events;
  }

  /**
   * Runs `change` and writes `items` in the same statement, one round trip for a change and its
   * events (ADR 0077), inside the caller's transaction: the events are written only when the change
   * answers a row, and the change's rows are answered.
   */
  async publishAllWith<Row>(tx: Tx, change: RowsStatement, items: readonly EventToWrite[]): Promise<Row[]> {
    assertInTransaction(tx, items);
    const rows = await this.changeWithEvents<Row>(tx, change, items);
    if (rows.rows.length > 0 && rows.events.length > 0) {
      wakeRelaysAtCommit(tx, this.schema);
      for (const event of rows.events) this.onWritten?.(tx, event);
    }
    return rows.rows;
  }

  /**
   * `publishAllWith` for a change that is the whole transaction: sent on its own, the one statement
   * is its own transaction, so the change and its events commit together or not at all, without a
   * BEGIN or COMMIT to wait for. Committed when it answers.
   */
  async commitAllWith<Row>(db: Queryable, change: RowsStatement, items: readonly EventToWrite[]): Promise<Row[]> {
    if ((db as Partial<EntityManager>).queryRunner?.isTransactionActive) {
      throw new Error(`commitAllWith commits on its own: ${items.map((i) => i.type).join(', ')} must not be written inside a transaction`);
    }
    const rows = await this.changeWithEvents<Row>(db, change, items);
    if (rows.rows.length > 0) {
      if (rows.events.length > 0) outboxCommitted(this.schema);
      this.onCommittedAlone?.();
      for (const event of rows.events) this.onWritten?.(null, event);
    }
    return rows.rows;
  }

  private async changeWithEvents<Row>(db: Queryable, change: RowsStatement, items: readonly EventToWrite[]): Promise<{ rows: Row[]; events: DomainEvent[] }> {
    const events = this.build(items);
    const offset = change.params.length;
    const changed = change.alongside ? `changed AS (${change.text}), ${change.alongside}` : `changed AS (${change.text})`;
    const text =
      events.length === 0
        ? `WITH ${changed} SELECT * FROM changed`
        : `WITH ${changed},
           written AS (
             INSERT INTO outbox (id, type, payload)
             SELECT * FROM (VALUES ${outboxRows(events.length, offset)}) AS e WHERE EXISTS (SELECT 1 FROM changed)
           )
           SELECT * FROM changed`;
    const params = [...change.params, ...outboxValues(events)];
    const rows: Row[] = await db.query(text, params);
    return { rows, events };
  }

  private build(items: readonly EventToWrite[]): DomainEvent[] {
    const requestId = currentRequestId() ?? null;
    return items.map(({ type, data }) => buildEvent(type, data, this.producer, requestId) as DomainEvent);
  }
}

export interface OutboxRelayOptions {
  dataSource: DataSource;
  schema: string;
  bus: Bus;
  log: Logger;
  batchSize?: number;
  pollIntervalMs?: number;
  retentionHours?: number;
  /** longest wait for the broker to confirm a batch; the rows stay unpublished and go again */
  confirmTimeoutMs?: number;
  /** longest wait for the loop to end in `stop()` */
  stopTimeoutMs?: number;
  /** fault injection for the crash-recovery test: runs after the broker confirmed, before the rows' mark commits */
  afterPublish?: (ids: string[]) => Promise<void>;
}

/** The broker returned events no queue (not even the holding queue) took; they stay in the outbox. */
export class UnroutableEvents extends Error {
  constructor(readonly ids: string[]) {
    super(`${ids.length} event(s) were returned unroutable and stay in the outbox`);
    this.name = 'UnroutableEvents';
  }
}

const RELAY_BOOKKEEPING = 'outboxRelayBookkeeping';

function markRelayBookkeeping(runner: QueryRunner) {
  runner.data = { ...runner.data, [RELAY_BOOKKEEPING]: true };
}

/**
 * Whether a transaction was the relay's own: marking events sent (or finding none to send, once a
 * second) changes nothing a reader sees, so it is no reason to drop what is kept of a service's answers.
 */
export function isRelayBookkeeping(runner: QueryRunner | undefined): boolean {
  return runner?.data?.[RELAY_BOOKKEEPING] === true;
}

/**
 * Publishes outbox rows with publisher confirms; they are marked sent in the statement that claims
 * them (`FOR UPDATE SKIP LOCKED`, so replicas share the work), and the mark commits only after the
 * broker confirmed them: a crash before that commit leaves the rows unmarked and they are published
 * again (consumers dedupe by event id).
 *
 * Messages are mandatory: one the broker returns (nothing bound, not even the alternate exchange's
 * holding queue) is unmarked before the commit and goes again after a backoff. The channel is acquired before the
 * transaction opens, so a broker outage never holds row locks or a pool connection; acquiring a
 * channel and waiting for confirms are bounded, and so is `stop()` (ADR 0011).
 */
export class OutboxRelay {
  private channel: ConfirmChannel | null = null;
  private readonly returned = new Set<string>();
  private running = false;
  private wake: (() => void) | null = null;
  /** a commit (or a reconnect) came while the relay was draining, not waiting: it drains again at once */
  private woken = false;
  private loop: Promise<void> | null = null;
  private lastCleanup = 0;
  private backoff = 0;
  private stopWaking: (() => void) | null = null;

  constructor(private readonly opts: OutboxRelayOptions) {}

  async start() {
    this.running = true;
    // During an outage the backoff stands: a commit is no reason to retry a broker that just failed
    // (the reconnect wakes the relay itself).
    this.stopWaking = onOutboxCommitted(this.opts.schema, () => {
      if (this.backoff === 0) this.nudge();
    });
    this.loop = this.run();
    // What piled up during an outage goes out as soon as the broker is back, not after the backoff.
    this.opts.bus.onReconnect(async () => {
      this.backoff = 0;
      this.nudge();
    });
  }

  async stop() {
    this.running = false;
    this.stopWaking?.();
    this.stopWaking = null;
    this.wake?.();
    const bound = this.opts.stopTimeoutMs ?? 15_000;
    await withTimeout(this.loop ?? Promise.resolve(), bound, 'stopping the outbox relay').catch((err) =>
      this.opts.log.warn({ err: { message: (err as Error).message } }, 'outbox relay did not stop in time'),
    );
    await closeQuietly(this.channel);
    this.channel = null;
  }

  /** Publishes everything pending now; returns how many events went out. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.publishBatch();
      total += n;
      if (n < (this.opts.batchSize ?? 100) || (this.loop && !this.running)) return total;
    }
  }

  /** Ends the wait now, or, while a drain runs (whose read may have come before the commit), has the next one follow at once. */
  private nudge() {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  private async run() {
    const pollMs = this.opts.pollIntervalMs ?? 1000;
    while (this.running) {
      this.woken = false;
      try {
        const published = await this.drain();
        this.backoff = 0;
        await this.cleanupIfDue();
        if (published > 0) continue;
      } catch (err) {
        this.backoff = Math.min(this.backoff ? this.backoff * 2 : 200, 10_000);
        this.opts.log.warn({ err: { message: (err as Error).message } }, 'outbox publish failed; will retry');
        if (!(err instanceof UnroutableEvents)) {
          const broken = this.channel;
          this.channel = null;
          await closeQuietly(broken);
        }
      }
      if (!this.running) break;
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.backoff || pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private async getChannel() {
    if (!this.channel) {
      const channel = await this.opts.bus.confirmChannel();
      channel.on('close', () => {
        if (this.channel === channel) this.channel = null;
      });
      channel.on('return', (msg: { properties: { messageId?: string } }) => {
        if (msg.properties.messageId) this.returned.add(msg.properties.messageId);
      });
      this.channel = channel;
    }
    return this.channel;
  }

  private async publishBatch(): Promise<number> {
    // Only an open channel lets a transaction start: waiting for the broker holds no lock.
    const channel = await this.getChannel();
    const runner = this.opts.dataSource.createQueryRunner();
    markRelayBookkeeping(runner);
    await runner.connect();
    await runner.startTransaction();
    try {
      // Claimed and marked sent in one statement, in a transaction held open until the broker has
      // confirmed: a publish that fails or dies rolls the mark back with it. UPDATE … RETURNING
      // answers in no particular order, so the rows are put back in the order they were written.
      const claimed = await updateReturning<{ seq: string; id: string; type: string; payload: { producer: string; traceparent?: string } }>(
        runner,
        `UPDATE outbox SET published_at = now()
          WHERE seq IN (SELECT seq FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING seq, id, type, payload`,
        [this.opts.batchSize ?? 100],
      );
      if (claimed.length === 0) {
        await runner.commitTransaction();
        return 0;
      }
      const rows = claimed.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
      const ids = rows.map((r) => r.id);
      for (const id of ids) this.returned.delete(id);
      for (const row of rows) {
        // on its producer's own exchange, stamped with the broker user the broker checks it against
        // (ADR 0054); in the trace of the change that wrote it (its envelope's traceparent) when that
        // trace is sampled, the publish's own span then named in the message's headers for the consumer
        const exchange = producerExchange(this.opts.bus.exchange, row.payload.producer);
        inSampledSpan(`publish ${exchange}`, SpanKind.PRODUCER, [row.payload.traceparent], (traceparent) =>
          channel.publish(exchange, row.type, Buffer.from(JSON.stringify(row.payload)), {
            persistent: true,
            mandatory: true,
            userId: this.opts.bus.user,
            messageId: row.id,
            type: row.type,
            contentType: 'application/json',
            ...(traceparent ? { headers: { traceparent } } : {}),
          }),
        );
      }
      // The broker sends a return before the confirm of the same message, so after this every return is known.
      await withTimeout(channel.waitForConfirms(), this.opts.confirmTimeoutMs ?? 10_000, 'waiting for broker confirms');
      const returned = ids.filter((id) => this.returned.has(id));
      for (const id of returned) this.returned.delete(id);
      await this.opts.afterPublish?.(ids.filter((id) => !returned.includes(id)));
      if (returned.length > 0) {
        await runner.query(`UPDATE outbox SET published_at = NULL WHERE id = ANY($1::uuid[])`, [returned]);
      }
      await runner.commitTransaction();
      if (returned.length > 0) {
        this.opts.log.error({ event_ids: returned }, 'broker returned unroutable events; they stay in the outbox');
        throw new UnroutableEvents(returned);
      }
      return rows.length;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  private async cleanupIfDue() {
    const now = Date.now();
    if (now - this.lastCleanup < 10 * 60_000) return;
    this.lastCleanup = now;
    await this.opts.dataSource.query(
      `DELETE FROM outbox WHERE published_at < now() - make_interval(hours => $1)`,
      [this.opts.retentionHours ?? 72],
    );
  }
}
