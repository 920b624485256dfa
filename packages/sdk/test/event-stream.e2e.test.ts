import { randomUUID as uuidv7 } from 'node:crypto';
import { eventually, mintToken, newAdmin, publishEvent, startStack, type Stack } from '@market/testkit';
import { createMarketClient, openEventStream, parseEventBlock, type ApiProblem, type StreamEvent, type StreamState } from '../src';

describe('an event stream block', () => {
  it('reads id, event, data lines and retry; comments and unknown fields say nothing', () => {
    expect(parseEventBlock('id: 7\nevent: notification\ndata: {"a":1}')).toEqual({ event: { id: '7', event: 'notification', data: '{"a":1}' }, retryMs: undefined });
    expect(parseEventBlock('data:one\ndata: two\nfoo: bar')).toEqual({ event: { id: undefined, event: 'message', data: 'one\ntwo' }, retryMs: undefined });
    expect(parseEventBlock(': heartbeat')).toEqual({ event: undefined, retryMs: undefined });
    expect(parseEventBlock('retry: 3000')).toEqual({ event: undefined, retryMs: 3000 });
  });
});

/** The SDK's fetch-based stream reader against the back office's stream, through the gateway. */
describe('openEventStream', () => {
  const MAX_AGE_MS = 1000;
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      services: ['notify', 'admin'],
      serviceEnv: { notify: { NOTIFY_STREAM_MAX_AGE_MS: String(MAX_AGE_MS), NOTIFY_MAX_STREAMS_PER_USER: '1' } },
    });
  }, 60_000);
  afterAll(() => stack.stop());

  const dispute = () => ({
    dispute_id: uuidv7(),
    order_id: uuidv7(),
    renter_id: uuidv7(),
    owner_id: uuidv7(),
    type: 'usage' as const,
    raised_by: uuidv7(),
    reason: '账号被封',
  });

  it('sends the client’s token, reconnects where the server ended the stream and misses nothing', async () => {
    const admin = await newAdmin(stack, ['reviewer']);
    const market = createMarketClient({ baseUrl: stack.url, realm: 'admin', tokens: { accessToken: admin.token } });
    const events: StreamEvent[] = [];
    const states: StreamState[] = [];
    const stream = openEventStream(market, '/api/admin/notifications/stream', { retryMs: 200, onEvent: (e) => events.push(e), onState: (s) => states.push(s) });
    try {
      await eventually(async () => states, (s) => s.includes('open'), 5000);
      const first = dispute();
      await publishEvent(stack, 'dispute.opened', first);
      await eventually(async () => events.length, (n) => n === 1, 5000);
      // The server ends every stream after its maximum age; the reader opens it again after the last id.
      await eventually(async () => states.filter((s) => s === 'open').length, (n) => n >= 2, 5000);
      const second = dispute();
      await publishEvent(stack, 'dispute.opened', second);
      await eventually(async () => events.length, (n) => n === 2, 5000);
      expect(events.map((e) => [e.event, JSON.parse(e.data).data.dispute_id])).toEqual([
        ['notification', first.dispute_id],
        ['notification', second.dispute_id],
      ]);
      expect(Number(events[1]!.id)).toBeGreaterThan(Number(events[0]!.id));
      expect(stream.lastEventId()).toBe(events[1]!.id);
      expect(states).not.toContain('closed');
    } finally {
      stream.close();
    }
    await eventually(async () => states, (s) => s[s.length - 1] === 'closed', 2000);
  });

  it('pauses before reopening a stream the server ended at once, so two readers beyond the bound do not take turns without end', async () => {
    const admin = await newAdmin(stack, ['reviewer']);
    const opened: number[] = [];
    const readers = [0, 1].map(() =>
      openEventStream(createMarketClient({ baseUrl: stack.url, realm: 'admin', tokens: { accessToken: admin.token } }), '/api/admin/notifications/stream', {
        retryMs: 500,
        maxRetryMs: 500,
        onEvent: () => undefined,
        onState: (s) => s === 'open' && opened.push(Date.now()),
      }),
    );
    // a window of time is the subject: how often the readers reopen within it
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const reader of readers) reader.close();
    // one stream per admin here: each opening ends the other's, which waits half a second to come back
    expect(opened.length).toBeGreaterThanOrEqual(3);
    expect(opened.length).toBeLessThanOrEqual(16);
  });

  it('stops, signing the client out, once the session is over', async () => {
    const admin = await newAdmin(stack, ['reviewer']);
    const signedOut: ApiProblem[] = [];
    const market = createMarketClient({
      baseUrl: stack.url,
      realm: 'admin',
      tokens: { accessToken: mintToken('admin', admin.id, admin.sid, 2) },
      onSignedOut: (p) => signedOut.push(p),
    });
    const states: StreamState[] = [];
    openEventStream(market, '/api/admin/notifications/stream', { retryMs: 200, onEvent: () => undefined, onState: (s) => states.push(s) });
    await eventually(async () => states, (s) => s[s.length - 1] === 'closed', 6000);
    expect(states).toContain('open');
    expect(signedOut.map((p) => p.status)).toEqual([401]);
    expect(market.tokens()).toBeNull();
  });
});
