import { SpanKind } from '@opentelemetry/api';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Db } from '../db/sql';
import type { Logger } from 'pino';
import { type ServiceName, eventConsumers, eventDataSchemas, eventProducers, type EventType, MONEY_EVENT_TYPES } from '@market/contracts';
import { failureKind, PermanentError } from '../errors';
import { runWithRequestId } from '../context/request-context';
import { inSampledSpan } from '../tracing';
import { closeQuietly, withTimeout, type Bus } from './bus';
import { parseEvent, type DomainEvent } from './envelope';
import type { EventWriter } from './outbox';
import { applyRun, runsOfOneHandler, type AnyEventHandler, type EventHandlers } from './event-handlers';
import { decideRetry, type RetryPolicy } from './retry-policy';
import { BrokerUsers } from './broker-users';
import { plumbingExchange, producerExchange, queueNames } from './topology';
import { alertUntrusted } from './untrusted-events';
import { clearWaiting, recordParked, recordWaiting, type EarlierFailures, type ParkedEvent } from './waiting-events';

/**
 * Thrown by a handler when retrying cannot help (the event contradicts what the service knows):
 * the event is parked in the dead-letter queue at once, for an operator.
 */
export class PermanentEventFailure extends PermanentError {
  constructor(message: string) {
    super('EVENT_NOT_APPLICABLE', message);
  }
}

/** Whether a handler's error is permanent (`failureKind`), so the event is parked at once instead of retried. */
export function isPermanentFailure(err: unknown): boolean {
  return failureKind(err) === 'permanent';
}

/** Types a service handles without declaring them in `eventConsumers` (their queue would never be bound to them). */
export function undeclaredHandlers(service: ServiceName, handlers: EventHandlers): string[] {
  const declared: readonly string[] = eventConsumers[service];
  return Object.keys(handlers).filter((type) => !declared.includes(type));
}

/** Whether a service handles an event that moves money, so it needs the `waiting_events` table. */
export function handlesMoneyEvents(handlers: EventHandlers): boolean {
  return (Object.keys(handlers) as EventType[]).some((type) => MONEY_EVENT_TYPES.has(type));
}

export interface InboxConsumerOptions {
  service: string;
  dataSource: Db;
  bus: Bus;
  log: Logger;
  handlers: EventHandlers;
  /** writes the waiting-event alerts and audit entries; required when the handlers take money events */
  events?: EventWriter;
  maxAttempts?: number;
  baseDelayMs?: number;
  /** longest retry delay */
  maxDelayMs?: number;
  /** unacknowledged deliveries at once: each runs a transaction, so keep it below the pool size */
  prefetch?: number;
  /**
   * Handles up to this many deliveries in one transaction (and takes as many unacknowledged at
   * once), one transaction at a time; 1, the default, handles each alone. Only for handlers whose
   * every effect is in the transaction: a batch that fails is rolled back and its events handled
   * again one by one, so a handler of a failed batch runs twice.
   */
  batchSize?: number;
  /**
   * With `batchSize`: how long a delivery may wait for others to share its transaction before its
   * batch starts (0, the default: at once). A batch starts earlier when it is full, or when the
   * consumer stops.
   */
  batchWaitMs?: number;
  /** longest wait for the broker to confirm a retry or DLQ message */
  confirmTimeoutMs?: number;
  /** pause before opening a new channel after the last one closed */
  resubscribeDelayMs?: number;
}

/**
 * Consumes the service's durable queue. Each event's id goes into `inbox` in the same transaction
 * as the handler's effect, so a redelivered or republished event changes nothing. What a failing
 * handler's event becomes is decided by the failure's kind (`decideRetry`, ADR 0026): a permanent
 * failure is parked in the dead-letter queue at once for an operator (`npm run dlq`); a transient
 * one is retried through a TTL queue with capped growing delay, after `maxAttempts` parked unless
 * the event moves money, which is retried until it succeeds and kept visible in `waiting_events`.
 * An unreadable event is parked at once (ADR 0011); so is an event the broker did not vouch for as
 * its contract producer's (ADR 0054), with an `ops.alert`, nothing of it applied.
 *
 * A channel that closes (broker restart, channel error) while handlers run leaves their messages
 * unacked: the broker redelivers them and the inbox makes that harmless. The consumer opens a new
 * channel by itself; nothing here may reject unobserved.
 */
export class InboxConsumer {
  private channel: ConfirmChannel | null = null;
  private consumerTag: string | null = null;
  private subscribing: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private inFlight = new Set<Promise<void>>();
  /** deliveries waiting for the next batch's transaction, in delivery order */
  private batchQueue: BatchItem[] = [];
  private batchRunning = false;
  /** starts the waiting batch when its first delivery has waited `batchWaitMs` */
  private batchTimer: NodeJS.Timeout | null = null;
  readonly queues: ReturnType<typeof queueNames>;
  /** The name of the span that handling a delivery makes in a sampled trace. */
  private readonly processSpan: string;
  private readonly users: BrokerUsers;
  /**
   * The money events this process is retrying now, as `waiting_events` has them: readable while
   * the database is what is down (a metrics exporter, a test).
   */
  readonly waiting = new Map<string, { event_id: string; type: string; attempts: number; first_failed_at: string; last_error: string }>();

  constructor(private readonly opts: InboxConsumerOptions) {
    this.queues = queueNames(opts.service, opts.bus.exchange);
    this.processSpan = `${this.queues.main} process`;
    this.users = new BrokerUsers(opts.bus.user, opts.service);
  }

  get eventTypes(): EventType[] {
    return Object.keys(this.opts.handlers) as EventType[];
  }

  /** Whether a channel is consuming now (tests and readiness). */
  get isConsuming(): boolean {
    return this.channel !== null && this.consumerTag !== null;
  }

  async start() {
    if (this.eventTypes.length === 0) return;
    await this.subscribe();
    this.opts.bus.onReconnect(() => this.subscribeOrRetry());
  }

  async stop() {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.subscribing?.catch(() => undefined);
    const channel = this.channel;
    const tag = this.consumerTag;
    this.channel = null;
    this.consumerTag = null;
    if (channel && tag) await withTimeout(channel.cancel(tag), this.confirmTimeoutMs, 'cancelling the consumer').catch(() => undefined);
    // nothing more is coming: a batch still waiting for company starts now
    this.runBatches();
    await Promise.allSettled([...this.inFlight]);
    await closeQuietly(channel);
  }

  private get confirmTimeoutMs() {
    return this.opts.confirmTimeoutMs ?? 10_000;
  }

  private subscribe(): Promise<void> {
    if (this.stopped || this.channel) return Promise.resolve();
    this.subscribing ??= this.openChannel().finally(() => {
      this.subscribing = null;
    });
    return this.subscribing;
  }

  private async subscribeOrRetry() {
    try {
      await this.subscribe();
    } catch (err) {
      this.opts.log.warn({ err: { message: (err as Error).message } }, 'event consumer could not subscribe; will retry');
      this.resubscribeSoon();
    }
  }

  private resubscribeSoon() {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.subscribeOrRetry();
    }, this.opts.resubscribeDelayMs ?? 1000);
  }

  private async openChannel() {
    const channel = await this.opts.bus.confirmChannel();
    this.channel = channel;
    channel.on('close', () => {
      if (this.channel !== channel) return;
      this.channel = null;
      this.consumerTag = null;
      if (this.stopped) return;
      this.opts.log.warn({ queue: this.queues.main }, 'event consumer channel closed; subscribing again');
      this.resubscribeSoon();
    });
    try {
      await this.opts.bus.ensureConsumerQueues(channel, this.opts.service, this.eventTypes);
      await channel.prefetch(this.batchSize > 1 ? this.batchSize : (this.opts.prefetch ?? 4));
      const { consumerTag } = await channel.consume(this.queues.main, (msg) => {
        // The broker cancels the consumer when its queue is deleted: a new channel re-declares it.
        if (!msg) return void closeQuietly(channel);
        const work = this.deliver(channel, msg).finally(() => this.inFlight.delete(work));
        this.inFlight.add(work);
      });
      this.consumerTag = consumerTag;
    } catch (err) {
      if (this.channel === channel) this.channel = null;
      await closeQuietly(channel);
      throw err;
    }
  }

  private async deliver(channel: ConfirmChannel, msg: ConsumeMessage) {
    try {
      await this.process(channel, msg);
    } catch (err) {
      // Settling failed: the channel is gone or the broker did not confirm. The message stays
      // unacked, the broker redelivers it to the next channel, and the inbox skips what committed.
      this.opts.log.warn(
        { err: { message: (err as Error).message }, message_id: msg.properties.messageId },
        'could not settle a delivered event; the broker will redeliver it',
      );
      if (!this.stopped) await closeQuietly(channel);
    }
  }

  private async process(channel: ConfirmChannel, msg: ConsumeMessage) {
    let event: DomainEvent;
    let raw: unknown;
    try {
      raw = JSON.parse(msg.content.toString('utf8'));
      event = parseEvent(raw);
    } catch (err) {
      const reason = `unreadable event: ${(err as Error).message}`;
      const claimed = claimedEnvelope(raw, msg);
      this.opts.log.error({ event_id: claimed.id, type: claimed.type, reason }, 'unreadable event parked in DLQ');
      if (this.mayMoveMoney([claimed.type, msg.fields.routingKey])) await this.noteParked(claimed, reason);
      await this.park(channel, msg, reason);
      return;
    }
    const distrust = this.distrust(event, msg);
    if (distrust) {
      this.opts.log.error(
        { event_id: event.id, type: event.type, producer: event.producer, broker_user: this.senderOf(msg) ?? null, reason: distrust },
        'untrusted event parked in DLQ',
      );
      await this.park(channel, msg, distrust);
      await this.alertUntrusted(event, msg, distrust);
      return;
    }
    const unsettled = unsettledDeliveries(msg);
    if (unsettled >= UNSETTLED_DELIVERY_LIMIT) {
      // Its earlier deliveries ended without an ack, a retry or a park: the consumer died or lost its
      // connection each time while the handler ran. Parked before the handler runs again (ADR 0062).
      const reason = `delivered ${unsettled + 1} times without being settled: its handler may stop or hang the consumer`;
      this.opts.log.error({ event_id: event.id, type: event.type, deliveries: unsettled + 1 }, 'event parked in DLQ after unsettled deliveries');
      if (MONEY_EVENT_TYPES.has(event.type)) await this.noteParked(event, reason);
      await this.park(channel, msg, reason, attemptsOf(msg) + 1);
      return;
    }
    // a retried event goes alone: its waiting row (a money event's) is cleared in its own transaction
    if (this.batchSize > 1 && attemptsOf(msg) === 0) return this.inNextBatch({ channel, msg, event });
    await this.settleAlone(channel, msg, event);
  }

  private get batchSize() {
    return this.opts.batchSize ?? 1;
  }

  /** Handles one delivery in its own transaction, then acks it, or has it retried or parked. */
  private async settleAlone(channel: ConfirmChannel, msg: ConsumeMessage, event: DomainEvent) {
    try {
      await runWithRequestId(event.correlation_id ?? event.id, () =>
        inSampledSpan(this.processSpan, SpanKind.CONSUMER, [publishTraceparent(msg)], () => this.handle(event, earlierFailures(msg))),
      );
    } catch (err) {
      await this.retryOrPark(channel, msg, event, err);
      return;
    }
    channel.ack(msg);
  }

  /** Queues a delivery for the next batch; settles when its batch has. */
  private inNextBatch(item: Omit<BatchItem, 'settled' | 'queuedAt'>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.batchQueue.push({ ...item, queuedAt: performance.now(), settled: { resolve, reject } });
      this.runBatches();
    });
  }

  /**
   * One batch at a time, of whatever was delivered while the last one ran or while its first
   * delivery waited `batchWaitMs`: at a trickle each event goes alone after that wait, and the busier
   * the queue the more events share a transaction (ADR 0085).
   */
  private runBatches() {
    if (this.batchRunning || this.batchQueue.length === 0) return;
    const waitLeft = (this.opts.batchWaitMs ?? 0) - (performance.now() - this.batchQueue[0]!.queuedAt);
    if (waitLeft > 0 && this.batchQueue.length < this.batchSize && !this.stopped) {
      this.batchTimer ??= setTimeout(() => {
        this.batchTimer = null;
        this.runBatches();
      }, waitLeft);
      return;
    }
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    this.batchRunning = true;
    const batch = this.batchQueue.splice(0, this.batchSize);
    void this.settleBatch(batch).finally(() => {
      this.batchRunning = false;
      this.runBatches();
    });
  }

  /**
   * Handles a batch in one transaction and acks each of its deliveries after the commit. When the
   * transaction fails, nothing of it stays and each event is handled again alone, so the one that
   * failed (a poison message, a handler's refusal) is retried or parked by itself and the others
   * are applied.
   */
  private async settleBatch(batch: BatchItem[]) {
    let together = true;
    try {
      await inSampledSpan(
        this.processSpan,
        SpanKind.CONSUMER,
        batch.map((item) => publishTraceparent(item.msg)),
        () => this.handleTogether(batch.map((item) => item.event)),
      );
    } catch (err) {
      together = false;
      if (batch.length > 1) {
        this.opts.log.warn({ err: { message: (err as Error).message }, events: batch.length }, 'event batch failed; handling its events one by one');
      }
    }
    for (const item of batch) {
      try {
        if (together) item.channel.ack(item.msg);
        else await this.settleAlone(item.channel, item.msg, item.event);
        item.settled.resolve();
      } catch (err) {
        item.settled.reject(err);
      }
    }
  }

  /**
   * Like `handle` for several first deliveries: one transaction, one inbox statement, the fresh
   * events in delivery order, each run of consecutive events of one handler in one call
   * (`applyRun`), so a run handler writes a batch's events at once, of every type it takes, and
   * effects across handlers keep their order.
   */
  private async handleTogether(events: DomainEvent[]) {
    const handled = events.filter((event) => this.handlerOf(event));
    if (handled.length === 0) return;
    await this.opts.dataSource.transaction(async (tx) => {
      const params = handled.flatMap((event) => [event.id, event.type]);
      const rows = handled.map((_, i) => `($${2 * i + 1}::uuid, $${2 * i + 2})`).join(', ');
      const inserted: Array<{ event_id: string }> = await tx.query(
        `INSERT INTO inbox (event_id, type) VALUES ${rows} ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        params,
      );
      // a copy delivered twice in one batch is applied once: each id returned is taken by its first event
      const unclaimed = new Set(inserted.map((row) => row.event_id));
      const fresh = handled.filter((event) => {
        if (unclaimed.delete(event.id)) return true;
        this.opts.log.debug({ event_id: event.id, type: event.type }, 'duplicate event skipped');
        return false;
      });
      const handlerOf = (event: DomainEvent) => this.handlerOf(event)!;
      for (const run of runsOfOneHandler(fresh, handlerOf)) await applyRun(handlerOf(run[0]!), run, tx);
    });
    for (const event of handled) this.waiting.delete(event.id);
  }

  private handlerOf(event: DomainEvent): AnyEventHandler | undefined {
    return this.opts.handlers[event.type] as AnyEventHandler | undefined;
  }

  /**
   * The broker user that sent `msg`, as the broker vouched for it. A message comes in through a
   * producer's exchange, where the broker has checked its `user_id` against the connection's user;
   * or through the default exchange, which only the broker (dead-lettering from this consumer's
   * retry queue) and an operator replaying the DLQ may write: those carry the user vouched for at
   * the first delivery in `x-broker-user`, which this consumer wrote when it moved the message.
   */
  private senderOf(msg: ConsumeMessage): string | undefined {
    const vouched = msg.fields.exchange === '' ? msg.properties.headers?.['x-broker-user'] : msg.properties.userId;
    return typeof vouched === 'string' && vouched ? vouched : undefined;
  }

  /**
   * Why an event cannot be trusted, if it cannot (ADR 0011, 0054): the broker must vouch for a
   * sender that is the service the envelope names as producer, that service must own the type, the
   * message must have come through that service's own exchange, under the type as routing key.
   */
  private distrust(event: DomainEvent, msg: ConsumeMessage): string | null {
    const user = this.senderOf(msg);
    if (!user) return `no broker user_id on ${event.type}: the broker vouches for no sender`;
    const sender = this.users.serviceOf(user, event.producer);
    if (!sender) return `broker user ${user} is no service's`;
    if (sender !== event.producer) return `envelope names ${event.producer} but broker user ${user} is ${sender}`;
    const owners: readonly string[] = eventProducers[event.type];
    if (!owners.includes(sender)) return `producer ${sender} does not own ${event.type}`;
    if (msg.fields.exchange === '') return null;
    if (msg.fields.exchange !== producerExchange(this.opts.bus.exchange, sender)) {
      return `${event.type} from ${sender} came through ${msg.fields.exchange}, not ${sender}'s exchange`;
    }
    if (msg.fields.routingKey !== event.type) return `routing key ${msg.fields.routingKey} is not the event type ${event.type}`;
    return null;
  }

  /** The sender the broker vouched for, kept on a message this consumer moves to its retry queue or DLQ. */
  private vouchedHeader(msg: ConsumeMessage): Record<string, string> {
    const user = this.senderOf(msg);
    return user ? { 'x-broker-user': user } : {};
  }

  private async alertUntrusted(event: DomainEvent, msg: ConsumeMessage, reason: string) {
    if (!this.opts.events) return;
    try {
      await alertUntrusted(this.opts.dataSource, this.opts.events, this.opts.service, {
        event_id: event.id,
        type: event.type,
        producer: event.producer,
        broker_user: this.senderOf(msg) ?? null,
        reason,
      });
    } catch (err) {
      this.opts.log.error({ event_id: event.id, err: { message: (err as Error).message } }, 'could not alert the back office of an untrusted event');
    }
  }

  private get policy(): RetryPolicy {
    return { maxAttempts: this.opts.maxAttempts ?? 6, baseDelayMs: this.opts.baseDelayMs ?? 500, maxDelayMs: this.opts.maxDelayMs ?? 60_000 };
  }

  private async retryOrPark(channel: ConfirmChannel, msg: ConsumeMessage, event: DomainEvent, err: unknown) {
    const attempts = attemptsOf(msg) + 1;
    const reason = (err as Error).message;
    const kind = failureKind(err);
    const movesMoney = MONEY_EVENT_TYPES.has(event.type);
    const decision = decideRetry(kind, movesMoney, attempts, this.policy);
    if (decision.action === 'park') {
      this.opts.log.error({ event_id: event.id, type: event.type, attempts, kind, reason }, 'event handler failed; parked in DLQ');
      if (movesMoney) await this.noteParked(event, reason);
      await this.park(channel, msg, reason, attempts);
      return;
    }
    const firstFailedAt = earlierFailures(msg)?.firstFailedAt.toISOString() ?? new Date().toISOString();
    const log = movesMoney ? this.opts.log.error.bind(this.opts.log) : this.opts.log.warn.bind(this.opts.log);
    log({ event_id: event.id, type: event.type, attempts, delay: decision.delayMs, first_failed_at: firstFailedAt, reason }, 'event handler failed; will retry');
    if (movesMoney) {
      this.waiting.set(event.id, { event_id: event.id, type: event.type, attempts, first_failed_at: firstFailedAt, last_error: reason.slice(0, 500) });
      await this.noteWaiting(event, attempts, new Date(firstFailedAt), reason, decision.alert);
    }
    channel.publish(plumbingExchange(this.opts.service, this.opts.bus.exchange), 'retry', msg.content, {
      ...this.copyProperties(msg),
      expiration: String(decision.delayMs),
      headers: {
        ...msg.properties.headers,
        ...this.vouchedHeader(msg),
        'x-attempts': attempts,
        'x-first-failed-at': firstFailedAt,
        'x-last-error': reason.slice(0, 500),
      },
    });
    await this.confirmed(channel);
    channel.ack(msg);
  }

  /**
   * Keeps the waiting row (and the one-time alert) of a failing money event. The database may be
   * the thing that is down: then this fails too, is logged, and the next failure tries again; the
   * broker headers keep the attempts and the first failure meanwhile.
   */
  private async noteWaiting(event: DomainEvent, attempts: number, firstFailedAt: Date, error: string, alert: boolean) {
    try {
      const raised = await recordWaiting(this.opts.dataSource, this.writer, this.opts.service, { event, attempts, firstFailedAt, error, alert });
      if (raised) this.opts.log.error({ event_id: event.id, type: event.type, attempts }, 'money event waiting; back office alerted');
    } catch (err) {
      this.opts.log.warn({ event_id: event.id, err: { message: (err as Error).message } }, 'could not record the waiting event; will try at its next failure');
    }
  }

  /**
   * Whether a message parked before its handler ran (unreadable, off its contract, untrusted) may be
   * a money event of this service's: a type it names (in the body or as routing key) that moves
   * money, or none it can be read as. Such a message is alerted on as any parked money event is
   * (ADR 0026): the money it stands for waits on an operator.
   */
  private mayMoveMoney(claimedTypes: Array<string | null>): boolean {
    if (!handlesMoneyEvents(this.opts.handlers)) return false;
    return claimedTypes.some((type) => type === null || !isEventType(type) || MONEY_EVENT_TYPES.has(type));
  }

  private async noteParked(event: ParkedEvent, reason: string) {
    if (event.id !== null) this.waiting.delete(event.id);
    try {
      await recordParked(this.opts.dataSource, this.writer, this.opts.service, event, reason);
    } catch (err) {
      this.opts.log.error({ event_id: event.id, err: { message: (err as Error).message } }, 'could not alert the back office of a parked money event');
    }
  }

  private get writer(): EventWriter {
    if (!this.opts.events) throw new Error(`${this.opts.service} handles money events without an EventWriter for their alerts`);
    return this.opts.events;
  }

  /**
   * Runs the handler and records the event id in one transaction; a seen id is skipped. A money
   * event that had failed before (`earlier`) also clears its waiting row there.
   */
  async handle(event: DomainEvent, earlier: EarlierFailures | null = null) {
    const handler = this.handlerOf(event);
    if (!handler) return;
    await this.opts.dataSource.transaction(async (tx) => {
      const inserted: unknown[] = await tx.query(
        `INSERT INTO inbox (event_id, type) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [event.id, event.type],
      );
      if (inserted.length === 0) this.opts.log.debug({ event_id: event.id, type: event.type }, 'duplicate event skipped');
      else await applyRun(handler, [event], tx);
      // A copy handled elsewhere (a replica, a replay) ends this delivery's wait all the same.
      if (earlier && MONEY_EVENT_TYPES.has(event.type)) {
        await clearWaiting(tx, this.writer, this.opts.service, event, earlier, earlier.attempts >= this.policy.maxAttempts);
      }
    });
    this.waiting.delete(event.id);
  }

  private confirmed(channel: ConfirmChannel) {
    return withTimeout(channel.waitForConfirms(), this.confirmTimeoutMs, 'waiting for broker confirms');
  }

  /** What a moved message keeps; its `user_id` becomes this consumer's, the only one the broker lets it send. */
  private copyProperties(msg: ConsumeMessage) {
    return {
      persistent: true,
      userId: this.opts.bus.user,
      messageId: msg.properties.messageId,
      type: msg.properties.type,
      contentType: msg.properties.contentType,
    };
  }

  private async park(channel: ConfirmChannel, msg: ConsumeMessage, reason: string, attempts = 1) {
    channel.publish(plumbingExchange(this.opts.service, this.opts.bus.exchange), 'dead', msg.content, {
      ...this.copyProperties(msg),
      headers: {
        ...msg.properties.headers,
        ...this.vouchedHeader(msg),
        'x-attempts': attempts,
        'x-last-error': reason.slice(0, 500),
        'x-original-routing-key': msg.fields.routingKey,
        'x-dead-lettered-at': new Date().toISOString(),
      },
    });
    await this.confirmed(channel);
    channel.ack(msg);
  }
}

/** A delivery waiting for its batch, and how to tell its `deliver` that the batch settled it. */
interface BatchItem {
  channel: ConfirmChannel;
  msg: ConsumeMessage;
  event: DomainEvent;
  /** `performance.now()` when it joined the queue */
  queuedAt: number;
  settled: { resolve: () => void; reject: (err: unknown) => void };
}

/**
 * Deliveries of one message from the consumer's quorum queue that ended unsettled, after which the
 * consumer parks it itself, with the alerts of a parked money event; the broker's own
 * `x-delivery-limit` (`BROKER_DELIVERY_LIMIT`, above this) is the backstop should the consumer never
 * get this far (ADR 0062). Well above what connection losses in a failover cost a message.
 */
export const UNSETTLED_DELIVERY_LIMIT = 10;

/** The `traceparent` of the span that published a delivery, when its trace is sampled (`OutboxRelay`). */
function publishTraceparent(msg: ConsumeMessage): string | undefined {
  const traceparent: unknown = msg.properties.headers?.traceparent;
  return typeof traceparent === 'string' ? traceparent : undefined;
}

/** How often the quorum queue handed this message out before without it being settled (its `x-delivery-count`). */
function unsettledDeliveries(msg: ConsumeMessage): number {
  const count = Number(msg.properties.headers?.['x-delivery-count'] ?? 0);
  return Number.isFinite(count) ? count : 0;
}

function attemptsOf(msg: ConsumeMessage): number {
  return Number(msg.properties.headers?.['x-attempts'] ?? 0);
}

/** What the retry headers say of a redelivered event's earlier failures; null on its first delivery. */
function earlierFailures(msg: ConsumeMessage): EarlierFailures | null {
  const attempts = attemptsOf(msg);
  if (attempts === 0) return null;
  const first = new Date(String(msg.properties.headers?.['x-first-failed-at'] ?? ''));
  return { attempts, firstFailedAt: Number.isNaN(first.getTime()) ? new Date() : first };
}

function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(eventDataSchemas, type);
}

/** What an unreadable message says it is, as far as it can be read: its body's id and type, else the broker's message id and type. */
function claimedEnvelope(raw: unknown, msg: ConsumeMessage): ParkedEvent {
  const body = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value.slice(0, 200) : null);
  return { id: text(body.id) ?? text(msg.properties.messageId), type: text(body.type) ?? text(msg.properties.type) };
}
