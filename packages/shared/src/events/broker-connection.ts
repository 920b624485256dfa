import { EventEmitter } from 'node:events';
import { connect, type Channel, type ChannelModel, type ConfirmChannel } from 'amqplib';

/**
 * The broker addresses `AMQP_URL` lists: one URL, or the nodes of a cluster separated by commas
 * (`amqp://u:p@rabbit-0:5672,amqp://u:p@rabbit-1:5672`). Every address logs in as the same user:
 * the user is who the broker vouches a message's sender to be (ADR 0054), whichever node it lands on.
 */
export function brokerAddresses(urls: string): string[] {
  const addresses = urls
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  if (addresses.length === 0) throw new Error('AMQP_URL names no broker address');
  const users = new Set(addresses.map((url) => decodeURIComponent(new URL(url).username)));
  if (users.size > 1) throw new Error('every address in AMQP_URL must log in as the same broker user');
  return addresses;
}

/** Where an address points, for logs: never its credentials. */
export function addressForLog(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5672}`;
}

/**
 * A plain connection to the first of `urls` (comma-separated, as `AMQP_URL`) that answers: for
 * operator tools (`npm run dlq`, the provisioning), which run once and need no recovery.
 */
export async function connectFirstAnswering(urls: string): Promise<ChannelModel> {
  let lastError: unknown;
  for (const address of brokerAddresses(urls)) {
    try {
      return await connect(address);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

export interface FailoverOptions {
  addresses: readonly string[];
  /** the `connection_name` client property: how an operator (and `rabbitmqctl close_connection`) finds this connection */
  connectionName?: string;
  /** runs on every new connection before it is handed out (declaring the topology); a failure counts as a failed attempt */
  setup: (model: ChannelModel) => Promise<void>;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** failed attempts before the first connection after which the start gives up */
  initialMaxRetries?: number;
  /** how long opening a TCP connection to one address may take (an address that swallows packets) */
  connectTimeoutMs?: number;
  /** AMQP heartbeat, seconds, unless the address sets its own: how soon a node that vanished without closing is noticed */
  heartbeatSeconds?: number;
}

/**
 * One AMQP connection that recovers by itself, over several broker addresses (ADR 0062): it opens
 * the first address that answers; when a connection is lost, or an attempt fails, it tries the next
 * address in the list at once, and after each full round of failed addresses pauses with a backoff
 * (with jitter) that doubles per round, up to `maxDelayMs`. Once connected it never gives up. It emits what
 * amqplib's own recovering connection emits: `connect` (after `setup`), `disconnect`,
 * `connect-failed`, `reconnect-failed` (only before a first connection) and `error`.
 */
export class FailoverConnection extends EventEmitter {
  private model: ChannelModel | null = null;
  private next = 0;
  private failedAttempts = 0;
  private connectedOnce = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private settleInitial!: (err?: Error) => void;
  private readonly initial: Promise<void>;
  /** the address connected now, for logs */
  connectedTo: string | null = null;

  constructor(private readonly opts: FailoverOptions) {
    super();
    if (opts.addresses.length === 0) throw new Error('no broker address');
    this.initial = new Promise<void>((resolve, reject) => {
      let settled = false;
      this.settleInitial = (err) => {
        if (settled) return;
        settled = true;
        if (err) reject(err);
        else resolve();
      };
    });
    // nobody may be waiting for the first connection (a caller that closes first)
    this.initial.catch(() => undefined);
    // first attempt on the next turn, so the caller can attach listeners first
    setImmediate(() => void this.attempt());
  }

  waitForConnect(): Promise<void> {
    return this.initial;
  }

  createChannel(): Promise<Channel> {
    return this.model ? this.model.createChannel() : Promise.reject(new Error('broker not connected'));
  }

  createConfirmChannel(): Promise<ConfirmChannel> {
    return this.model ? this.model.createConfirmChannel() : Promise.reject(new Error('broker not connected'));
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.settleInitial(new Error('connection closed'));
    const model = this.model;
    this.model = null;
    if (model) await model.close().catch(() => undefined);
  }

  private withHeartbeat(address: string): string {
    const url = new URL(address);
    if (!url.searchParams.has('heartbeat')) url.searchParams.set('heartbeat', String(this.opts.heartbeatSeconds ?? 10));
    return url.toString();
  }

  private async attempt() {
    if (this.stopped) return;
    const index = this.next;
    const address = this.opts.addresses[index]!;
    let model: ChannelModel | null = null;
    try {
      model = await connect(this.withHeartbeat(address), {
        timeout: this.opts.connectTimeoutMs ?? 5000,
        ...(this.opts.connectionName ? { clientProperties: { connection_name: this.opts.connectionName } } : {}),
      });
      // a connection that dies before it is bound is a failed attempt like any other
      model.on('error', () => undefined);
      if (!this.stopped) await this.opts.setup(model);
      if (this.stopped) {
        await model.close().catch(() => undefined);
        return;
      }
      this.bind(model, index);
    } catch (err) {
      if (model) await model.close().catch(() => undefined);
      this.next = (index + 1) % this.opts.addresses.length;
      this.emit('connect-failed', err instanceof Error ? err : new Error(String(err)));
      this.schedule(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private bind(model: ChannelModel, index: number) {
    this.model = model;
    this.connectedTo = addressForLog(this.opts.addresses[index]!);
    this.failedAttempts = 0;
    this.connectedOnce = true;
    model.on('close', (err?: Error) => {
      if (this.model !== model) return;
      this.model = null;
      this.connectedTo = null;
      if (this.stopped) return;
      // the node this connection was on may be the one that is gone: the next address first
      this.next = (index + 1) % this.opts.addresses.length;
      const reason = err ?? new Error('connection closed');
      this.emit('disconnect', reason);
      this.schedule(reason);
    });
    // an 'error' nobody listens to would throw: the bus listens once the first connection is made
    model.on('error', (err: Error) => this.listenerCount('error') > 0 && this.emit('error', err));
    this.settleInitial();
    this.emit('connect', model);
  }

  private schedule(reason: Error) {
    if (this.stopped || this.timer) return;
    if (!this.connectedOnce && this.failedAttempts >= (this.opts.initialMaxRetries ?? 20)) {
      this.stopped = true;
      this.settleInitial(reason);
      this.emit('reconnect-failed', reason);
      return;
    }
    this.failedAttempts += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.attempt();
    }, this.delay());
  }

  /**
   * None while addresses of this round are left untried (the next node may well answer); after each
   * full round of failures, `initialDelayMs` doubling per round, within ±20 % jitter, capped at `maxDelayMs`.
   */
  private delay(): number {
    const count = this.opts.addresses.length;
    if (this.failedAttempts % count !== 0) return 0;
    const initial = this.opts.initialDelayMs ?? 200;
    const max = this.opts.maxDelayMs ?? 5000;
    const base = Math.min(max / 1.2, initial * 2 ** (this.failedAttempts / count - 1));
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }
}
