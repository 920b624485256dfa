import type { ServerResponse } from 'node:http';
import { type AdminIdentity, type RevocationNotice, type UserIdentity } from '@market/shared/auth';
import { ChannelListener } from '@market/shared/events';
import { type Logger } from '@market/shared/logging';
import { StreamsStopped } from '../domain/errors';
import { ENDS_STREAMS } from '../domain/notification-messages';
import type { NotificationView } from '../application/notification-view';

export interface StreamItem {
  seq: number;
  kind: string;
  view: NotificationView;
}

/** Who holds a stream open: a user reading their own notifications, or an admin reading the back office's. */
export type StreamCaller = UserIdentity | AdminIdentity;

/** Where streams read from: the notifications themselves, and whether a session may still listen. */
export interface StreamSource {
  after(recipient: string, seq: number, limit: number): Promise<StreamItem[]>;
  stillAllowed(caller: StreamCaller): Promise<boolean>;
}

export interface HubOptions {
  databaseUrl: string;
  channel: string;
  log: Logger;
  source: StreamSource;
  heartbeatMs: number;
  maxAgeMs: number;
  maxStreamsPerUser: number;
  /** pause before listening again after the listening connection was lost */
  relistenMs?: number;
}

const BATCH = 100;

/**
 * One open `text/event-stream`. It never holds notifications itself: woken by the hub, it reads
 * its user's rows after the last position it sent, so an announcement it missed (a lost listener,
 * a wake during a read) costs latency, never a notification; the heartbeat reads too.
 */
class LiveStream {
  private pulling = false;
  private again = false;
  private ended = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private maxAge: NodeJS.Timeout | undefined;

  constructor(
    readonly caller: StreamCaller,
    /** whose notifications it carries: the user's own, or the back office's */
    readonly recipient: string,
    private position: number,
    private readonly res: ServerResponse,
    private readonly opts: HubOptions,
    private readonly onEnd: (stream: LiveStream) => void,
  ) {}

  start() {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      // no-transform: nothing on the way may compress (and so hold back) the stream; X-Accel-Buffering
      // asks nginx-style proxies not to buffer it.
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    this.res.write('retry: 3000\n\n');
    this.res.on('close', () => this.end());
    // The client may have left while the stream's position was being read.
    if (this.res.destroyed) return this.end();
    this.heartbeat = setInterval(() => void this.beat(), this.opts.heartbeatMs);
    // The stream lives no longer than the access token it was opened with: the client reconnects
    // with a fresh one (and its Last-Event-ID), as the gateway would refuse the old one now.
    const tokenLeft = this.caller.exp === undefined ? Infinity : this.caller.exp * 1000 - Date.now();
    if (tokenLeft <= 0) return this.end();
    this.maxAge = setTimeout(() => this.end(), Math.min(this.opts.maxAgeMs, tokenLeft));
    this.wake();
  }

  wake() {
    void this.pull();
  }

  private async pull() {
    if (this.ended) return;
    if (this.pulling) {
      this.again = true;
      return;
    }
    this.pulling = true;
    try {
      do {
        this.again = false;
        let batch: StreamItem[];
        do {
          batch = await this.opts.source.after(this.recipient, this.position, BATCH);
          for (const item of batch) {
            if (this.ended) return;
            this.position = item.seq;
            const flowing = this.res.write(`id: ${item.seq}\nevent: notification\ndata: ${JSON.stringify(item.view)}\n\n`);
            if (ENDS_STREAMS.has(item.kind)) return this.end();
            if (!flowing) await this.drained();
          }
        } while (batch.length === BATCH);
      } while (this.again && !this.ended);
    } catch (err) {
      this.opts.log.warn({ err: { message: (err as Error).message } }, 'notification stream could not read; trying again at the next wake');
    } finally {
      this.pulling = false;
    }
  }

  /** A slow reader holds its own stream back instead of piling notifications up in memory. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }

  private async beat() {
    if (this.ended) return;
    this.res.write(': heartbeat\n\n');
    if (await this.recheck()) this.wake();
  }

  /** Ends the stream if its caller may no longer listen (what the gateway would decide now); answers whether it goes on. */
  async recheck(): Promise<boolean> {
    if (this.ended) return false;
    if (await this.opts.source.stillAllowed(this.caller)) return !this.ended;
    this.end();
    return false;
  }

  end() {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.maxAge);
    this.onEnd(this);
    this.res.end();
  }
}

/**
 * The streams open on this replica, by recipient (a user, or the back office every admin's stream
 * reads), and the one Postgres connection that LISTENs for new notifications. Whichever replica's
 * consumer wrote a notification, its commit NOTIFYs every replica, and each wakes the streams of
 * that recipient (ADR 0019, ADR 0043).
 */
export class NotificationHub {
  private readonly streams = new Map<string, Set<LiveStream>>();
  private readonly listener: ChannelListener;
  private stopped = false;

  constructor(private readonly opts: HubOptions) {
    this.listener = new ChannelListener({
      databaseUrl: opts.databaseUrl,
      channel: opts.channel,
      log: opts.log,
      relistenMs: opts.relistenMs,
      onNotification: (recipient) => {
        if (recipient) this.wake(recipient);
      },
      // whatever was announced while nobody listened is read now (streams fall back to their heartbeat meanwhile)
      onListening: (listening) => {
        if (listening) for (const own of this.streams.values()) for (const stream of own) stream.wake();
      },
    });
  }

  async start() {
    await this.listener.start();
  }

  /** Streams open on this replica (a metric). */
  get openStreams(): number {
    let open = 0;
    for (const own of this.streams.values()) open += own.size;
    return open;
  }

  /**
   * Opens a stream of `recipient`'s notifications after `position`. Beyond the bound per caller
   * (a user, an admin) the caller's oldest stream here ends: the usual reason for too many is a
   * client whose old connections died unnoticed.
   */
  open(caller: StreamCaller, recipient: string, position: number, res: ServerResponse) {
    if (this.stopped) throw new StreamsStopped();
    const stream = new LiveStream(caller, recipient, position, res, this.opts, (s) => this.forget(s));
    const own = this.streams.get(recipient) ?? new Set<LiveStream>();
    this.streams.set(recipient, own);
    own.add(stream);
    const callers = [...own].filter((s) => s.caller.kind === caller.kind && s.caller.sub === caller.sub);
    if (callers.length > this.opts.maxStreamsPerUser) callers[0]!.end();
    stream.start();
  }

  async stop() {
    this.stopped = true;
    for (const own of [...this.streams.values()]) for (const stream of [...own]) stream.end();
    await this.listener.stop();
  }

  /**
   * Ends at once the streams a revocation takes away: the session's, or every stream of a blocked
   * user or disabled admin (ADR 0034); after a change of an admin's roles, that admin's streams
   * check at once whether the new roles still allow them (ADR 0056). The heartbeat's check stays as
   * the net under a lost subscription.
   */
  revoked(notice: RevocationNotice) {
    const touched = [...this.streams.values()].flatMap((own) =>
      [...own].filter(
        ({ caller }) => caller.kind === notice.realm && (notice.sub !== undefined ? caller.sub === notice.sub : caller.sid === notice.sid),
      ),
    );
    for (const stream of touched) {
      if (notice.recheck) void stream.recheck();
      else stream.end();
    }
  }

  private forget(stream: LiveStream) {
    const own = this.streams.get(stream.recipient);
    own?.delete(stream);
    if (own?.size === 0) this.streams.delete(stream.recipient);
  }

  private wake(recipient: string) {
    for (const stream of this.streams.get(recipient) ?? []) stream.wake();
  }
}
