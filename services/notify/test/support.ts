import { v7 as uuidv7 } from 'uuid';
import type { EventData } from '@market/contracts';
import { checkedFetch, eventually, type Caller, type Stack } from '@market/testkit';

export { newUser, type Caller } from '@market/testkit';

/** Waits until the stack's notify has handled the event (its inbox holds the id). */
export function eventHandled(stack: Stack, eventId: string) {
  return eventually(
    () => stack.services.notify!.ctx.db.query(`SELECT 1 FROM inbox WHERE event_id = $1`, [eventId]),
    (rows: unknown[]) => rows.length === 1,
  );
}

/** An order between two users as orders describes it in its events. */
export function orderSnapshot(renter: Pick<Caller, 'id'>, owner: Pick<Caller, 'id'>, overrides: Partial<EventData<'order.paid'>> = {}): EventData<'order.paid'> {
  return {
    order_id: uuidv7(),
    listing_id: uuidv7(),
    listing_title: '王者荣耀 全英雄',
    renter_id: renter.id,
    owner_id: owner.id,
    status: 'pending_handoff',
    rent: 2400,
    deposit: 5000,
    amount: 7400,
    hours: 3,
    reason: null,
    actor_id: renter.id,
    paid_at: new Date().toISOString(),
    ...overrides,
  };
}

/** A listing of `owner` as catalog describes it in its events: online and approved unless `overrides` say otherwise. */
export function listingSnapshot(owner: Pick<Caller, 'id'>, overrides: Partial<EventData<'listing.approved'>> = {}): EventData<'listing.approved'> {
  return {
    listing_id: uuidv7(),
    owner_id: owner.id,
    title: '原神 满命胡桃',
    game: '原神',
    hourly_price: 800,
    deposit: 5000,
    min_hours: 1,
    max_hours: 24,
    status: 'online',
    review_status: 'approved',
    updated_at: new Date().toISOString(),
    actor_id: owner.id,
    ...overrides,
  };
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * A Server-Sent Events reader over fetch, as a client app holds one: it collects events and
 * comment lines (heartbeats) as they arrive and knows when the server ended the stream.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: Array<{ text: string; at: number }> = [];
  readonly arrivals: number[] = [];
  status = 0;
  headers: Headers | null = null;
  /** the problem answered instead of a stream */
  problem: unknown = null;
  ended = false;
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();

  static async open(url: string, token: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const response = await checkedFetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers },
      signal: client.abort.signal,
    });
    client.status = response.status;
    client.headers = response.headers;
    if (response.ok && response.body) client.done = client.read(response.body);
    else {
      client.ended = true;
      client.problem = await response.json();
    }
    return client;
  }

  private async read(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          this.parse(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
  }

  private parse(block: string) {
    const event: SseEvent = { data: '' };
    let isEvent = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments.push({ text: line.slice(1).trim(), at: Date.now() });
      else if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('event: ')) event.event = line.slice(7);
      else if (line.startsWith('data: ')) {
        event.data += line.slice(6);
        isEvent = true;
      }
    }
    if (isEvent) {
      this.events.push(event);
      this.arrivals.push(Date.now());
    }
  }

  notifications(): any[] {
    return this.events.filter((e) => e.event === 'notification').map((e) => JSON.parse(e.data));
  }

  lastEventId(): string | undefined {
    return this.events[this.events.length - 1]?.id;
  }

  async close() {
    this.abort.abort();
    await this.done;
  }

  /** Resolves once the server has ended the stream. */
  untilEnded(timeoutMs = 10_000) {
    return eventually(async () => this.ended, (ended) => ended, timeoutMs);
  }
}

/** Opens streams for the tests of the enclosing describe, each closed after the test that opened it. */
export function streamsClosedAfterEach() {
  const streams: SseClient[] = [];
  afterEach(async () => {
    await Promise.all(streams.splice(0).map((s) => s.close()));
  });
  return async (url: string, token: string, headers: Record<string, string> = {}) => {
    const stream = await SseClient.open(url, token, headers);
    streams.push(stream);
    return stream;
  };
}

/** How long the server took to end `stream`, which must end within `withinMs`. */
export async function msUntilEnded(stream: SseClient, withinMs: number): Promise<number> {
  const started = Date.now();
  await stream.untilEnded(withinMs);
  return Date.now() - started;
}
