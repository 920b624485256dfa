import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type { EventType } from '../contracts/events';
import { runWithRequestId } from '../http/request-context';
import type { Bus } from './bus';
import { parseEvent, type DomainEvent } from './envelope';

/**
 * Thrown by a handler when retrying cannot help (the event contradicts what the service knows):
 * the event is parked in the dead-letter queue at once, for an operator.
 */
export class PermanentEventFailure extends Error {}

export type EventHandler<T extends EventType> = (event: DomainEvent<T>, manager: EntityManager) => Promise<void>;
export type EventHandlers = { [T in EventType]?: EventHandler<T> };

export const queueNames = (service: string) => ({
  main: `${service}.events`,
  retry: `${service}.events.retry`,
  dead: `${service}.events.dlq`,
});

export interface InboxConsumerOptions {
  service: string;
  dataSource: DataSource;
  bus: Bus;
  log: Logger;
  handlers: EventHandlers;
  maxAttempts?: number;
  baseDelayMs?: number;
  prefetch?: number;
}

/**
 * Consumes the service's durable queue. Each event's id goes into `inbox` in the same transaction
 * as the handler's effect, so a redelivered or republished event changes nothing. A failing
 * handler is retried through a TTL queue with growing delay; after `maxAttempts` the message is
 * parked in the dead-letter queue for an operator (`npm run dlq`).
 */
export class InboxConsumer {
  private channel: ConfirmChannel | null = null;
  private consumerTag: string | null = null;
  private inFlight = new Set<Promise<void>>();
  readonly queues: ReturnType<typeof queueNames>;

  constructor(private readonly opts: InboxConsumerOptions) {
    this.queues = queueNames(opts.service);
  }

  get eventTypes(): EventType[] {
    return Object.keys(this.opts.handlers) as EventType[];
  }

  async start() {
    if (this.eventTypes.length === 0) return;
    await this.opts.bus.onConnect(() => this.setup());
  }

  async stop() {
    const channel = this.channel;
    this.channel = null;
    if (channel && this.consumerTag) await channel.cancel(this.consumerTag).catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    await channel?.close().catch(() => undefined);
  }

  private async setup() {
    const channel = await this.opts.bus.confirmChannel();
    const { main, retry, dead } = this.queues;
    await channel.assertQueue(main, { durable: true });
    await channel.assertQueue(retry, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': main },
    });
    await channel.assertQueue(dead, { durable: true });
    for (const type of this.eventTypes) await channel.bindQueue(main, this.opts.bus.exchange, type);
    await channel.prefetch(this.opts.prefetch ?? 16);
    const { consumerTag } = await channel.consume(main, (msg) => {
      if (!msg) return;
      const work = this.deliver(channel, msg).finally(() => this.inFlight.delete(work));
      this.inFlight.add(work);
    });
    this.channel = channel;
    this.consumerTag = consumerTag;
  }

  private async deliver(channel: ConfirmChannel, msg: ConsumeMessage) {
    let event: DomainEvent;
    try {
      event = parseEvent(JSON.parse(msg.content.toString('utf8')));
    } catch (err) {
      await this.park(channel, msg, `unreadable event: ${(err as Error).message}`);
      return;
    }
    try {
      await runWithRequestId(event.correlation_id ?? event.id, () => this.handle(event));
      channel.ack(msg);
    } catch (err) {
      const attempts = Number(msg.properties.headers?.['x-attempts'] ?? 0) + 1;
      const reason = (err as Error).message;
      if (attempts >= (this.opts.maxAttempts ?? 6) || err instanceof PermanentEventFailure) {
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
      await channel.waitForConfirms();
      channel.ack(msg);
    }
  }

  /** Runs the handler and records the event id in one transaction; a seen id is skipped. */
  async handle(event: DomainEvent) {
    const handler = this.opts.handlers[event.type] as EventHandler<EventType> | undefined;
    if (!handler) return;
    await this.opts.dataSource.transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO inbox (event_id, type) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [event.id, event.type],
      );
      if (inserted.length === 0) {
        this.opts.log.debug({ event_id: event.id, type: event.type }, 'duplicate event skipped');
        return;
      }
      await handler(event, manager);
    });
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
    await channel.waitForConfirms();
    channel.ack(msg);
  }
}
