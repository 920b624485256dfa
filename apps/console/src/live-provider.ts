import type { LiveEvent, LiveProvider } from '@refinedev/core';
import { openEventStream, type EventStream, type MarketClient, type StreamState } from '@market/sdk';

/** The back office's stream (`GET /api/admin/notifications/stream`): queue changes and alerts as they happen. */
export const BACK_OFFICE_CHANNEL = 'back-office';
const STREAM = '/api/admin/notifications/stream';

/** The event a subscriber gets when the stream opens, goes down (it is retried) or closes. */
export const STREAM_STATE = 'stream.state';

export type StreamStateEvent = LiveEvent & { type: typeof STREAM_STATE; payload: { state: StreamState } };

/**
 * Refine's live layer over the SDK's `openEventStream`: a subscription to the back-office channel
 * reads the stream with the client's session (reconnecting with Last-Event-ID, retried while down,
 * ended with the session). Each notification arrives as a LiveEvent typed by its `kind`
 * (`dispute.opened`, `listing.submitted`…), each change of the stream's state as `stream.state`.
 * Other channels (Refine's per-resource ones) have no stream: lists are read on demand.
 */
export function createLiveProvider(client: MarketClient): LiveProvider {
  return {
    subscribe: ({ channel, types, callback }): EventStream | null => {
      if (channel !== BACK_OFFICE_CHANNEL) return null;
      const wants = (type: string) => types.includes('*') || types.includes(type);
      return openEventStream(client, STREAM, {
        onEvent: (event) => {
          if (event.event !== 'notification') return;
          const payload = JSON.parse(event.data) as { kind: string; [key: string]: unknown };
          if (wants(payload.kind)) callback({ channel, type: payload.kind, payload, date: new Date() });
        },
        onState: (state) => {
          if (wants(STREAM_STATE)) callback({ channel, type: STREAM_STATE, payload: { state }, date: new Date() });
        },
      });
    },
    unsubscribe: (stream: EventStream | null) => stream?.close(),
  };
}
