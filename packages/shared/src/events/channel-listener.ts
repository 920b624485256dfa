import { Client } from 'pg';
import type { Logger } from 'pino';

export interface ChannelListenerOptions {
  databaseUrl: string;
  /** the Postgres channel, quoted as given (case and all) */
  channel: string;
  log: Logger;
  /** each notification's payload */
  onNotification: (payload: string) => void;
  /**
   * Told true once LISTEN is in force (from then on no commit's notification is missed) and false
   * when the connection is lost (notifications sent meanwhile are lost with it).
   */
  onListening?: (listening: boolean) => void;
  /** pause before connecting again after the connection was lost or could not be opened */
  relistenMs?: number;
}

/**
 * One Postgres connection that LISTENs on a channel for as long as it is started, connected again
 * after it is lost. A notification is delivered when its transaction commits and never if it rolls
 * back, to every replica listening; one sent while a replica's connection was down is lost for it,
 * which `onListening(false)` tells, so the owner can stop relying on notifications until it is back.
 */
export class ChannelListener {
  private client: Client | null = null;
  private relistenTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly opts: ChannelListenerOptions) {}

  get listening(): boolean {
    return this.client !== null;
  }

  /** Listens; fails when the database cannot be reached now (a start then fails, as with the pool). */
  async start() {
    this.stopped = false;
    await this.listen();
  }

  async stop() {
    this.stopped = true;
    if (this.relistenTimer) clearTimeout(this.relistenTimer);
    this.relistenTimer = null;
    const client = this.client;
    this.client = null;
    if (client) this.opts.onListening?.(false);
    await client?.end().catch(() => undefined);
  }

  private async listen() {
    const client = new Client({ connectionString: this.opts.databaseUrl, connectionTimeoutMillis: 5000, keepAlive: true });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.opts.onListening?.(false);
      this.opts.log.warn({ err: err ? { message: err.message } : undefined, channel: this.opts.channel }, 'channel listener lost; connecting again');
      client.end().catch(() => undefined);
      this.relistenSoon();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => this.opts.onNotification(msg.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.opts.channel.replace(/"/g, '""')}"`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.opts.onListening?.(true);
  }

  private retry(err: Error) {
    this.opts.log.warn({ err: { message: err.message }, channel: this.opts.channel }, 'channel listener could not connect; will retry');
    this.relistenSoon();
  }

  private relistenSoon() {
    if (this.stopped || this.relistenTimer) return;
    this.relistenTimer = setTimeout(() => {
      this.relistenTimer = null;
      this.listen().catch((err: Error) => this.retry(err));
    }, this.opts.relistenMs ?? 1000);
  }
}
