import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import type { Logger } from 'pino';
import type { EventType } from '@market/contracts';
import { brokerAddresses, FailoverConnection } from './broker-connection';
import { brokerUserOf } from './broker-users';
import { checkServiceTopology, declareConsumerQueues, declareTopology, queueNames } from './topology';

export interface BusOptions {
  /** shows in the broker's connection list, so an operator can tell which process holds which connection */
  name?: string;
  /** longest wait for a channel; a disconnected bus refuses at once */
  channelTimeoutMs?: number;
  /**
   * the service this connection is: a service user may declare nothing (ADR 0054), so when the
   * broker refuses the topology the bus checks that the service's own part exists instead
   */
  service?: string;
}

/** Whether this connection declares the topology, or only checks the part its service uses. */
type TopologyRole = { declares: boolean };

/** The broker cannot be reached now; the caller retries later, nothing is lost. */
export class BrokerUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokerUnavailable';
  }
}

/** Rejects after `ms`; `onLate` receives the value if it arrives after all, so nothing leaks. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new BrokerUnavailable(`${what} timed out after ${ms} ms`));
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) onLate?.(value);
        else resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        if (!timedOut) reject(err);
      },
    );
  });
}

/**
 * Closes a channel or connection without waiting more than `ms` for the broker's close-ok (a
 * broker that stopped answering never sends it) and without ever rejecting.
 */
export async function closeQuietly(closable: { close(): Promise<unknown> } | null | undefined, ms = 2000): Promise<void> {
  if (!closable) return;
  await withTimeout(Promise.resolve().then(() => closable.close()), ms, 'closing').catch(() => undefined);
}

/**
 * One recovering AMQP connection per process, over one broker address or the several nodes of a
 * cluster (`FailoverConnection`, ADR 0062). The whole topology is declared on every (re)connect
 * before any channel is handed out (ADR 0011). Channels die with a connection, so users register an
 * `onReconnect` callback that (re)creates what they need each time the connection comes back (the
 * consumer subscribes again, the relay publishes what waited). No broker failure escapes as an
 * unhandled rejection: after start, the broker coming and going is an ordinary condition.
 */
export class Bus {
  private readonly listeners: Array<() => Promise<void>> = [];
  private connected = false;
  private closed = false;
  readonly channelTimeoutMs: number;
  /** the broker user this connection logs in as: what the broker checks every message's `user_id` against */
  readonly user: string;

  private constructor(
    readonly connection: FailoverConnection,
    readonly exchange: string,
    private readonly log: Logger,
    options: BusOptions,
    url: string,
    private readonly role: TopologyRole,
  ) {
    this.channelTimeoutMs = options.channelTimeoutMs ?? 5000;
    this.user = brokerUserOf(url);
    connection.on('connect', () => {
      this.connected = true;
      this.log.info({ broker: connection.connectedTo }, 'amqp connection recovered');
      for (const listener of this.listeners) this.runListener(listener);
    });
    connection.on('disconnect', (err: Error) => {
      this.connected = false;
      this.log.warn({ err: { message: err?.message } }, 'amqp connection lost; recovering');
    });
    connection.on('connect-failed', (err: Error) => this.log.warn({ err: { message: err?.message } }, 'amqp reconnect attempt failed'));
    connection.on('reconnect-failed', (err: Error) => {
      this.connected = false;
      this.log.error({ err: { message: err?.message } }, 'amqp recovery abandoned');
    });
    connection.on('error', (err: Error) => this.log.warn({ err: { message: err.message } }, 'amqp error'));
  }

  /** `urls`: one broker address, or several separated by commas (`AMQP_URL`), tried in turn. */
  static async connect(urls: string, exchange: string, log: Logger, options: BusOptions | string = {}): Promise<Bus> {
    const opts: BusOptions = typeof options === 'string' ? { name: options } : options;
    const role: TopologyRole = { declares: true };
    const addresses = brokerAddresses(urls);
    const connection = new FailoverConnection({
      addresses,
      ...(opts.name ? { connectionName: opts.name } : {}),
      initialDelayMs: 200,
      maxDelayMs: 5000,
      initialMaxRetries: 20,
      setup: (model: ChannelModel) => declareTopologyOn(model, exchange, log, opts.service, role),
    });
    // A topology the broker refuses (an exchange declared before it had an alternate exchange)
    // will not heal by retrying: fail the start at once, saying what to run.
    let refused: Error | null = null;
    // Nor will a topology that is missing where the service user may only check it.
    const onFailed = (err: Error & { code?: number }) => {
      if (err.code !== 406 && err.code !== 404 && err.code !== 403) return;
      refused = new Error(`the broker refused the event topology (${err.message}); run scripts/provision-broker.mjs (ADR 0011, 0054)`);
      void closeQuietly(connection);
    };
    connection.on('connect-failed', onFailed);
    try {
      await connection.waitForConnect();
    } catch (err) {
      throw refused ?? err;
    } finally {
      connection.off('connect-failed', onFailed);
    }
    const bus = new Bus(connection, exchange, log, opts, addresses[0]!, role);
    bus.connected = true;
    return bus;
  }

  get isConnected() {
    return this.connected;
  }

  /** Runs `listener` after every reconnect (not now); its failure is logged, the listener owns its retries. */
  onReconnect(listener: () => Promise<void>): void {
    this.listeners.push(listener);
  }

  private runListener(listener: () => Promise<void>) {
    listener().catch((err) => this.log.error({ err: { message: (err as Error).message } }, 'amqp reconnect setup failed'));
  }

  /**
   * Makes sure a consumer's queues are there on `channel` before it consumes: declared again (the
   * broker cancels a consumer whose queue was deleted) where this connection may, checked otherwise.
   */
  async ensureConsumerQueues(channel: Channel, service: string, types: readonly EventType[]) {
    if (this.role.declares) await declareConsumerQueues(channel, this.exchange, service, types);
    else for (const queue of Object.values(queueNames(service, this.exchange))) await channel.checkQueue(queue);
  }

  async confirmChannel(): Promise<ConfirmChannel> {
    const channel = await this.acquire(() => this.connection.createConfirmChannel());
    return channel as ConfirmChannel;
  }

  private async acquire<C extends Channel>(create: () => Promise<C>): Promise<C> {
    if (this.closed) throw new BrokerUnavailable('bus closed');
    // A recovering connection queues channel requests until it is back, which could be forever:
    // callers must not wait (and hold locks) on that.
    if (!this.connected) throw new BrokerUnavailable('broker not connected');
    const channel = await withTimeout(create(), this.channelTimeoutMs, 'opening an amqp channel', (late) => {
      void closeQuietly(late);
    });
    channel.on('error', (err: Error) => this.log.warn({ err: { message: err.message } }, 'amqp channel error'));
    return channel;
  }

  async close() {
    this.closed = true;
    this.connected = false;
    await closeQuietly(this.connection, 5000);
  }
}

/**
 * Declares the whole topology when the connection's user may (development's shared user, an
 * operator); a service user may not (ADR 0054): the broker refuses with 403, and then the service's
 * own exchange, queues and plumbing, which the provisioning declared, must exist.
 */
async function declareTopologyOn(model: ChannelModel, exchange: string, log: Logger, service: string | undefined, role: TopologyRole) {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    await declareTopology(channel, exchange);
    await channel.close();
    role.declares = true;
  } catch (err) {
    if ((err as { code?: number }).code !== 403 || !service) {
      log.error({ err: { message: (err as Error).message } }, 'declaring the event topology failed');
      throw err;
    }
    await checkOwnTopology(model, exchange, log, service);
    role.declares = false;
  }
}

async function checkOwnTopology(model: ChannelModel, exchange: string, log: Logger, service: string) {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    await checkServiceTopology(channel, exchange, service);
    await channel.close();
  } catch (err) {
    log.error({ err: { message: (err as Error).message } }, 'the event topology of this service is missing; provision the broker');
    throw err;
  }
}
