import { connect, type Channel, type ConfirmChannel, type RecoveringChannelModel } from 'amqplib';
import type { Logger } from 'pino';

/**
 * One recovering AMQP connection per process. Channels die with a connection, so users register
 * an `onConnect` callback that (re)creates what they need each time the connection comes back.
 */
export class Bus {
  private readonly listeners: Array<() => Promise<void>> = [];
  private connected = false;

  private constructor(
    readonly connection: RecoveringChannelModel,
    readonly exchange: string,
    private readonly log: Logger,
  ) {
    connection.on('connect', () => {
      this.connected = true;
      for (const listener of this.listeners) {
        listener().catch((err) => this.log.error({ err }, 'amqp reconnect setup failed'));
      }
    });
    connection.on('disconnect', (err: Error) => {
      this.connected = false;
      this.log.warn({ err: { message: err?.message } }, 'amqp connection lost; recovering');
    });
    connection.on('error', (err: Error) => this.log.warn({ err: { message: err.message } }, 'amqp error'));
  }

  /** `name` shows in the broker's connection list, so an operator can tell which process holds which connection. */
  static async connect(url: string, exchange: string, log: Logger, name?: string): Promise<Bus> {
    const connection = await connect(url, {
      recovery: { initialDelay: 200, maxDelay: 5000, initialMaxRetries: 20 },
      ...(name ? { clientProperties: { connection_name: name } } : {}),
    });
    const bus = new Bus(connection, exchange, log);
    bus.connected = true;
    const channel = await connection.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.close();
    return bus;
  }

  get isConnected() {
    return this.connected;
  }

  /** Runs `setup` now and after every reconnect. */
  async onConnect(setup: () => Promise<void>) {
    this.listeners.push(setup);
    await setup();
  }

  async confirmChannel(): Promise<ConfirmChannel> {
    const channel = await this.connection.createConfirmChannel();
    channel.on('error', (err: Error) => this.log.warn({ err: { message: err.message } }, 'amqp channel error'));
    await channel.assertExchange(this.exchange, 'topic', { durable: true });
    return channel;
  }

  async channel(): Promise<Channel> {
    const channel = await this.connection.createChannel();
    channel.on('error', (err: Error) => this.log.warn({ err: { message: err.message } }, 'amqp channel error'));
    return channel;
  }

  async close() {
    await this.connection.close().catch(() => undefined);
  }
}
