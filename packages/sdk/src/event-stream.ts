import type { MarketClient } from './client';

/** One Server-Sent Event as the API sends it: `id:`, `event:` and the `data:` lines joined. */
export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * - `connecting`: a request is on its way (first or again)
 * - `open`: the stream is open; events arrive as they happen
 * - `down`: it could not be opened or it broke; it is tried again after a pause
 * - `closed`: closed by the caller, or refused (the session is over: the client already signed out)
 */
export type StreamState = 'connecting' | 'open' | 'down' | 'closed';

export interface EventStreamOptions {
  onEvent: (event: StreamEvent) => void;
  onState?: (state: StreamState) => void;
  /** resume after this id (an event of an earlier stream) */
  lastEventId?: string;
  /** the first pause before trying again; doubled after each failure up to `maxRetryMs` (the server's `retry:` replaces it) */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface EventStream {
  close(): void;
  /** the id of the last event received (where a reconnection resumes) */
  lastEventId(): string | undefined;
}

/** Splits a stream's text into events (blocks ending in a blank line); comment lines (heartbeats) say nothing. */
export function parseEventBlock(block: string): { event?: StreamEvent; retryMs?: number } {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  let retryMs: number | undefined;
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
  }
  return { event: data.length > 0 ? { id, event, data: data.join('\n') } : undefined, retryMs };
}

/**
 * Reads a Server-Sent Events route of the API with the client's bearer token. Browsers' EventSource
 * cannot send one (and the API takes no token in the query string, where access logs would keep
 * it), so this reads the stream with fetch. Each (re)connection goes through the client: it carries
 * the token current at that moment, a user's 401 is recovered by the client's refresh, and a
 * session that is over (401, or a 403 of a disabled admin) signs the client out and closes the
 * stream. A stream the server ends (its token's expiry, its maximum age) is opened again at once
 * with `Last-Event-ID`, so nothing is missed; one that fails, or that the server ended within
 * `retryMs` of opening it, is tried again after a growing pause.
 */
export function openEventStream(client: MarketClient, path: string, options: EventStreamOptions): EventStream {
  const abort = new AbortController();
  let lastEventId = options.lastEventId;
  let closed = false;
  const firstRetry = options.retryMs ?? 3000;
  let retryMs = firstRetry;
  let state: StreamState | undefined;
  const setState = (next: StreamState) => {
    if (next === state) return;
    state = next;
    options.onState?.(next);
  };

  async function read(body: ReadableStream<Uint8Array>) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut: RegExpExecArray | null;
      while ((cut = /\r?\n\r?\n/.exec(buffer))) {
        const { event, retryMs: retry } = parseEventBlock(buffer.slice(0, cut.index));
        buffer = buffer.slice(cut.index + cut[0].length);
        if (retry !== undefined) retryMs = retry;
        if (event) {
          if (event.id !== undefined) lastEventId = event.id;
          options.onEvent(event);
        }
      }
    }
  }

  async function connectOnce(): Promise<'again' | 'pause' | 'stop'> {
    setState('connecting');
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const response = await client.fetch(new Request(client.url(path), { headers, signal: abort.signal }));
    if (response.status === 401 || response.status === 403) return 'stop';
    if (!response.ok || !response.body) return 'pause';
    setState('open');
    const openedAt = Date.now();
    await read(response.body);
    // A stream the server ended at once (another tab took its place beyond the per-admin bound, a
    // token at its last second) is opened again only after a pause, or two tabs would take turns
    // without end; one that lived its life is opened again at once.
    if (Date.now() - openedAt < firstRetry) return 'pause';
    retryMs = firstRetry;
    return 'again';
  }

  void (async () => {
    while (!closed) {
      let next: 'again' | 'pause' | 'stop';
      try {
        next = await connectOnce();
      } catch {
        next = 'pause';
      }
      if (closed) break;
      if (next === 'stop') break;
      if (next === 'pause') {
        setState('down');
        const pause = retryMs;
        retryMs = Math.min(retryMs * 2, options.maxRetryMs ?? 30_000);
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            abort.signal.removeEventListener('abort', wake);
            resolve();
          };
          const timer = setTimeout(wake, pause);
          abort.signal.addEventListener('abort', wake);
        });
      }
    }
    closed = true;
    setState('closed');
  })();

  return {
    close() {
      closed = true;
      abort.abort();
    },
    lastEventId: () => lastEventId,
  };
}
