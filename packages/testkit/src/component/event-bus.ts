import { connect, type Channel, type ChannelModel, type Options } from 'amqplib';
import { eventProducers, SERVICE_NAMES, type EventData, type EventType, type ServiceName } from '@market/contracts';
import { brokerUserOf, buildEvent, declareTopology, parseEvent, producerExchange, type DomainEvent } from '@market/shared/events';
import { serviceAmqpUrl } from '@market/shared/testing';

/** A message as a test sends it: what no relay would send (an unreadable body), or a burst on one channel. */
export interface RawMessage {
  routingKey: string;
  content: Buffer;
  options?: Options.Publish;
}

/**
 * Publishes `messages` as `service` would: logged in as its broker user, onto its own exchange,
 * stamped with its user_id (ADR 0054), on one channel. `env` is the stack's or component's environment.
 */
export async function publishRawAs(env: NodeJS.ProcessEnv, service: ServiceName, messages: RawMessage[]) {
  const url = serviceAmqpUrl(env, service);
  const connection = await connect(url);
  connection.on('error', () => undefined);
  try {
    const channel = await connection.createConfirmChannel();
    // What the broker refused (ACCESS_REFUSED: a routing key the service does not own) closes the
    // channel: that refusal, not "channel closed", is what the caller sees.
    let refusal: Error | undefined;
    channel.on('error', (err: Error) => (refusal = err));
    try {
      for (const { routingKey, content, options } of messages) {
        channel.publish(producerExchange(String(env.EVENTS_EXCHANGE), service), routingKey, content, { persistent: true, userId: brokerUserOf(url), ...options });
      }
      await channel.waitForConfirms();
    } catch (err) {
      throw refusal ?? err;
    }
    await channel.close();
  } finally {
    await connection.close();
  }
}

/**
 * Publishes an event as its producing service would: the contract's envelope, data validated
 * against the event contract, with the producer's broker user onto its exchange and with the relay's
 * message properties. `id` replays an envelope already sent (a redelivery).
 */
export async function publishOnExchange<T extends EventType>(env: NodeJS.ProcessEnv, type: T, data: EventData<T>, id?: string): Promise<DomainEvent<T>> {
  const producer = eventProducers[type][0]!;
  const event = { ...buildEvent(type, data, producer, null), ...(id ? { id } : {}) };
  await publishRawAs(env, producer, [
    { routingKey: type, content: Buffer.from(JSON.stringify(event)), options: { messageId: event.id, type, contentType: 'application/json' } },
  ]);
  return event;
}

/**
 * Everything published on one exchange, from the moment it is opened: a queue of its own bound to
 * every routing key. Each message is held against the event contracts as it arrives — the envelope,
 * the data schema of its type, a producer allowed to publish that type, the routing key equal to
 * the type — and a message that breaks them is kept as a violation for `takeViolations()`.
 */
export class EventTap {
  private readonly received: DomainEvent[] = [];
  private readonly violations: string[] = [];

  private constructor(
    private readonly connection: ChannelModel,
    private readonly channel: Channel,
    readonly queue: string,
  ) {}

  /** Declares the exchange's topology as the services do (so their declarations agree) and listens to every service's exchange. */
  static async open(amqpUrl: string, exchange: string): Promise<EventTap> {
    const connection = await connect(amqpUrl);
    try {
      const channel = await connection.createChannel();
      await declareTopology(channel, exchange);
      const { queue } = await channel.assertQueue(`${exchange}.tap`, { exclusive: true, autoDelete: true });
      for (const service of SERVICE_NAMES) await channel.bindQueue(queue, producerExchange(exchange, service), '#');
      const tap = new EventTap(connection, channel, queue);
      await channel.consume(queue, (message) => message && tap.take(message.fields.routingKey, message.content), { noAck: true });
      return tap;
    } catch (err) {
      await connection.close().catch(() => undefined);
      throw err;
    }
  }

  private take(routingKey: string, content: Buffer) {
    let event: DomainEvent;
    try {
      event = parseEvent(JSON.parse(content.toString('utf8')));
    } catch (err) {
      this.violations.push(`an event off its contract (routing key ${routingKey}): ${(err as Error).message.slice(0, 500)}`);
      return;
    }
    if (event.type !== routingKey) this.violations.push(`${event.type} ${event.id} was published with routing key ${routingKey}`);
    if (!(eventProducers[event.type] as readonly string[]).includes(event.producer)) {
      this.violations.push(`${event.type} ${event.id} names ${event.producer} as producer, which may not publish it`);
    }
    this.received.push(event);
  }

  /** Events of `type` published by `producer` so far, oldest first, each once (a relay may publish one twice). */
  events<T extends EventType>(type: T, producer?: string): Array<DomainEvent<T>> {
    const seen = new Set<string>();
    return this.received.filter((e): e is DomainEvent<T> => {
      if (e.type !== type || (producer !== undefined && e.producer !== producer) || seen.has(e.id)) return false;
      seen.add(e.id);
      return true;
    });
  }

  /** The violations seen since the last call, forgotten as they are handed out. */
  takeViolations(): string[] {
    return this.violations.splice(0);
  }

  async close(): Promise<void> {
    await this.channel.close().catch(() => undefined);
    await this.connection.close().catch(() => undefined);
  }
}
