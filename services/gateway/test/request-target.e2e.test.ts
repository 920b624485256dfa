import { connect } from 'node:net';
import { api, newUser, startStack, type Stack } from '@market/testkit';
import { isPlainRequestTarget } from '../src/request-target';

/** One request written byte for byte (no client library would send these targets), and its status line and body. */
function rawRequest(base: string, target: Buffer): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head!.split(' ')[1]), body });
    });
    socket.write(Buffer.concat([Buffer.from('GET '), target, Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]));
  });
}

/**
 * The gateway matches a route on the request target's text, the service on Express's parsed path;
 * a target the two read differently could be routed (and its caller checked) as one path and
 * served as another. Each odd target is refused before any route (ADR 0056).
 */
describe('request targets that parse to another path', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ services: ['catalog', 'notify'] });
  }, 60_000);
  afterAll(() => stack.stop());

  /** Targets Node's parser hands to the gateway, which refuses them itself. */
  const SEEN_BY_THE_GATEWAY: Array<[string, Buffer]> = [
    ['a fragment', Buffer.from('/api/notifications#/../listings')],
    ['a fragment on a public route', Buffer.from('/api/listings#x')],
    ['a backslash', Buffer.from('/api\\listings')],
    ['a backslash inside a segment', Buffer.from('/api/listings\\..\\notifications')],
    ['a fragment in the query', Buffer.from('/api/listings?limit=1#x')],
    ['an absolute-form target', Buffer.from('http://x/api/listings')],
    ['a fragment on the gateway’s own path', Buffer.from('/readyz#x')],
  ];
  /** Targets Node's HTTP parser (strict or not) refuses before any listener runs, on Node 20 and 24. */
  const REFUSED_BY_NODE: Array<[string, Buffer]> = [
    ['a tab', Buffer.from('/api/listings\t')],
    ['a non-breaking space (UTF-8)', Buffer.concat([Buffer.from('/api/listings'), Buffer.from([0xc2, 0xa0])])],
    ['a non-breaking space (latin-1)', Buffer.concat([Buffer.from('/api/listings'), Buffer.from([0xa0])])],
    ['a form feed', Buffer.from('/api/listings\f')],
    ['a character outside ASCII', Buffer.from('/api/listings/é')],
  ];

  it.each(SEEN_BY_THE_GATEWAY)('refuses %s with a 400 MALFORMED_REQUEST_TARGET problem', async (_label, target) => {
    const res = await rawRequest(stack.url, target);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST_TARGET' });
  });

  it.each(REFUSED_BY_NODE)('refuses %s with a 400 (Node’s parser, before the gateway)', async (_label, target) => {
    expect((await rawRequest(stack.url, target)).status).toBe(400);
    // and were Node's parser to let it through, the gateway's own rule refuses it
    expect(isPlainRequestTarget(target.toString('latin1'))).toBe(false);
  });

  it('still serves the same targets written plainly, percent-encoded where they need it', async () => {
    expect((await rawRequest(stack.url, Buffer.from('/api/listings'))).status).toBe(200);
    expect((await rawRequest(stack.url, Buffer.from('/api/listings?q=%C2%A0%23%5C'))).status).toBe(200);
    expect((await rawRequest(stack.url, Buffer.from('/readyz'))).status).toBe(200);
    // the user route the first odd target aimed past is still guarded as itself
    expect((await rawRequest(stack.url, Buffer.from('/api/notifications'))).status).toBe(401);
    expect((await api(stack.url).get('/api/notifications', newUser().token)).status).toBe(200);
  });

  it('documents the refusal among every route’s 400 answers', async () => {
    const document = (await api(stack.url).get('/api/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    expect(document.paths['/api/listings']!.get!.responses['400']!.description).toContain('MALFORMED_REQUEST_TARGET');
  });
});
