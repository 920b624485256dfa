import type { RedisClient } from './index';
import { endsWith } from './closing';

export interface ChannelListener {
  /** a message published on the channel while it is listened to */
  onMessage: (message: string) => void;
  /**
   * `true` once the subscription is confirmed (again), `false` as soon as the connection is lost:
   * what is published meanwhile is never delivered, so a listener that must not miss a message
   * treats `false` as "anything may have been said". `closing`: the `false` came from this process
   * ending `redis` (a shutdown), not from a lost connection.
   */
  onListening: (listening: boolean, closing: boolean) => void;
  /** the subscription could not be made (Redis away at the start, the channel refused); it is tried again */
  onFailure: (err: Error) => void;
}

/** How long after a failed subscription the next one is tried. */
const RETRY_MS = 2000;

/**
 * Listens to `channel` on a connection of its own (a subscribed connection takes no other
 * commands), opened from `redis` and ended with it. node-redis reconnects and subscribes again by
 * itself once subscribed; its `ready` comes only after that subscription is confirmed, which is
 * when `onListening` hears `true` again. A first subscription that fails is tried again until
 * `redis` ends.
 */
export function listenToChannel(redis: RedisClient, channel: string, listener: ChannelListener): void {
  let ended = false;
  let retry: NodeJS.Timeout | undefined;
  let subscriber: RedisClient | undefined;
  let listening = false;
  const hear = (now: boolean) => {
    if (now === listening) return;
    listening = now;
    listener.onListening(now, ended);
  };
  endsWith(redis, () => {
    ended = true;
    clearTimeout(retry);
    subscriber?.destroy();
  });

  const attempt = async () => {
    const own = (subscriber = redis.duplicate());
    let subscribed = false;
    // the main client already logs Redis going away and coming back; here it only means not listening
    own.on('error', () => hear(subscribed && own.isReady));
    own.on('reconnecting', () => hear(false));
    own.on('end', () => hear(false));
    own.on('ready', () => hear(subscribed));
    try {
      await own.connect();
      await own.subscribe(channel, listener.onMessage);
      subscribed = true;
      hear(!ended);
    } catch (err) {
      if (own.isOpen) own.destroy();
      if (ended) return;
      listener.onFailure(err as Error);
      retry = setTimeout(() => void attempt(), RETRY_MS);
      retry.unref();
    }
  };
  void attempt();
}
