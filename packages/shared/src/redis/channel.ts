import type { RedisClient } from './index';
import { endsWith } from './closing';

export interface ChannelListener {
  /** a message published on the channel while it is listened to */
  onMessage: (message: string) => void;
  /**
   * `true` once the subscription is confirmed (again), `false` as soon as the connection is lost:
   * what is published meanwhile is never delivered, so a listener that must not miss a message
   * treats `false` as "anything may have been said".
   */
  onListening: (listening: boolean) => void;
}

/**
 * Listens to `channel` on a connection of its own (a subscribed connection takes no other
 * commands), opened from `redis` and ended with it. node-redis reconnects and subscribes again by
 * itself; its `ready` comes only once that subscription is confirmed, which is when `onListening`
 * hears `true` again. Rejects when the first subscription is refused (a user without the channel).
 */
export async function listenToChannel(redis: RedisClient, channel: string, listener: ChannelListener): Promise<void> {
  const subscriber = redis.duplicate();
  let subscribed = false;
  let listening = false;
  const hear = (now: boolean) => {
    if (now === listening) return;
    listening = now;
    listener.onListening(now);
  };
  // the main client already logs Redis going away and coming back; here it only means not listening
  subscriber.on('error', () => hear(subscribed && subscriber.isReady));
  subscriber.on('reconnecting', () => hear(false));
  subscriber.on('end', () => hear(false));
  subscriber.on('ready', () => hear(subscribed));
  endsWith(redis, () => {
    subscribed = false;
    subscriber.destroy();
  });
  try {
    await subscriber.connect();
    await subscriber.subscribe(channel, listener.onMessage);
  } catch (err) {
    if (subscriber.isOpen) subscriber.destroy();
    throw err;
  }
  subscribed = true;
  hear(true);
}
