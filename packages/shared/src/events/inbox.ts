import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Db, Tx } from '../db/sql';
import type { Logger } from 'pino';
import { type ServiceName, eventConsumers, eventProducers, type EventType } from '@market/contracts';
import { isDatabaseUnavailable } from '../db/errors';
import { Problem } from '../http/problem';
import { runWithRequestId } from '../context/request-context';
import { closeQuietly, withTimeout, type Bus } from './bus';
import { parseEvent, type DomainEvent } from './envelope';
import { declareConsumerQueues, queueNames } from './topology';

/**
 * Thrown by a handler when retrying cannot help (the event contradicts what the service knows):
 * the event is parked in the dead-letter queue at once, for an operator.
 */
export class PermanentEventFailure extends Error {}

/** Client statuses that mean "not now" (a lock, a race, a limit) rather than "never". */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 409, 423, 425, 429]);

/**
 * Whether a handler's error is permanent, so the event is parked at once instead of retried:
 * a `PermanentEventFailure`, or a 4xx Problem (a coded domain refusal, which the same event
 * meets again on every try) other than the "not now" ones. An unreachable database, a timeout,
 * a 5xx Problem and any other error are transient: retried with backoff, parked after the last attempt.
 */
export function isPermanentFailure(err: unknown): boolean {
  if (err instanceof PermanentEventFailure) return true;
  if (isDatabaseUnavailable(err)) return false;
  return err instanceof Problem && err.status >= 400 && err.status < 500 && !RETRYABLE_CLIENT_STATUSES.has(err.status);
}

export type EventHandler<T extends EventType> = (event: DomainEvent<T>, tx: Tx) => Promise<void>;
export type EventHandlers = { [T in EventType]?: EventHandler<T> };

/** Types a service handles without declaring them in `eventConsumers` (their queue would never be bound to them). */
export function undeclaredHandlers(service: ServiceName, handlers: EventHandlers): string[] {
  const declared: readonly string[] = eventConsumers[service];
  return Object.keys(handlers).filter((type) => !declared.includes(type));
}

export interface InboxConsumerOptions {
  service: string;
  dataSource: Db;
  bus: Bus;
  log: Logger;
  handlers: EventHandlers;
  maxAttempts?: number;
  baseDelayMs?: number;
  prefetch?: number;
  /** longest wait for the broker to confirm a retry or DLQ message */
  confirmTimeoutMs?: number;
  /** pause before opening a new channel after the last one closed */
  resubscribeDelayMs?: number;
}

/**
 * Consumes the service's durable queue. Each event's id goes into `inbox` in the same transaction
 * as the handler's effect, so a redelivered or republished event changes nothing. A failing
 * handler is retried through a TTL queue with growing delay; after `maxAttempts` the message is
 * parked in the dead-letter queue for an operator (`npm run dlq`). An event whose envelope names
 * a producer that does not own its type is parked at once (ADR 0011).
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
  readonly queues: ReturnType<typeof queueNames>;

  constructor(private readonly opts: InboxConsumerOptions) {
    this.queues = queueNames(opts.service, opts.bus.exchange);
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
      await declareConsumerQueues(channel, this.opts.bus.exchange, this.opts.service, this.eventTypes);
      await channel.prefetch(this.opts.prefetch ?? 16);
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
    try {
      event = parseEvent(JSON.parse(msg.content.toString('utf8')));
    } catch (err) {
      await this.park(channel, msg, `unreadable event: ${(err as Error).message}`);
      return;
    }
    const distrust = this.distrust(event, msg);
    if (distrust) {
      this.opts.log.error({ event_id: event.id, type: event.type, producer: event.producer, reason: distrust }, 'untrusted event parked in DLQ');
      await this.park(channel, msg, distrust);
      return;
    }
    try {
      await runWithRequestId(event.correlation_id ?? event.id, () => this.handle(event));
    } catch (err) {
      await this.retryOrPark(channel, msg, event, err);
      return;
    }
    channel.ack(msg);
  }

  /**
   * Why an event cannot be trusted, if it cannot: only the owner of a type may publish it, and on
   * the exchange the routing key (which the broker's topic permissions check) must be the type.
   */
  private distrust(event: DomainEvent, msg: ConsumeMessage): string | null {
    const owners: readonly string[] = eventProducers[event.type];
    if (!owners.includes(event.producer)) return `producer ${event.producer} does not own ${event.type}`;
    if (msg.fields.exchange === this.opts.bus.exchange && msg.fields.routingKey !== event.type) {
      return `routing key ${msg.fields.routingKey} is not the event type ${event.type}`;
    }
    return null;
  }

  private async retryOrPark(channel: ConfirmChannel, msg: ConsumeMessage, event: DomainEvent, err: unknown) {
    const attempts = Number(msg.properties.headers?.['x-attempts'] ?? 0) + 1;
    const reason = (err as Error).message;
    if (attempts >= (this.opts.maxAttempts ?? 6) || isPermanentFailure(err)) {
      this.opts.log.error({ event_id: event.id, type: event.type, attempts, reason }, 'event handler failed; parked in DLQ');
      await this.park(channel, msg, reason, attempts);
      return;
    }
    const delay = (this.opts.baseDelayMs ?? 500) * 2 ** (attempts - 1);
    this.opts.log.warn({ event_id: event.id, type: event.type, attempts, delay, reason }, 'event handler failed; will retry');
    channel.sendToQueue(this.queues.retry, msg.content, {
      ...this.copyProperties(msg),
      expiration: String(delay),
      headers: { ...msg.properties.headers, 'x-attempts': attempts, 'x-last-error': reason.slice(0, 500) },
    });
    await this.confirmed(channel);
    channel.ack(msg);
  }

  /** Runs the handler and records the event id in one transaction; a seen id is skipped. */
  async handle(event: DomainEvent) {
    const handler = this.opts.handlers[event.type] as EventHandler<EventType> | undefined;
    if (!handler) return;
    await this.opts.dataSource.transaction(async (tx) => {
      const inserted: unknown[] = await tx.query(
        `INSERT INTO inbox (event_id, type) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [event.id, event.type],
      );
      if (inserted.length === 0) {
        this.opts.log.debug({ event_id: event.id, type: event.type }, 'duplicate event skipped');
        return;
      }
      await handler(event, tx);
    });
  }

  private confirmed(channel: ConfirmChannel) {
    return withTimeout(channel.waitForConfirms(), this.confirmTimeoutMs, 'waiting for broker confirms');
  }

  private copyProperties(msg: ConsumeMessage) {
    return {
      persistent: true,
      messageId: msg.properties.messageId,
      type: msg.properties.type,
      contentType: msg.properties.contentType,
    };
  }

  private async park(channel: ConfirmChannel, msg: ConsumeMessage, reason: string, attempts = 1) {
    channel.sendToQueue(this.queues.dead, msg.content, {
      ...this.copyProperties(msg),
      headers: {
        ...msg.properties.headers,
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
