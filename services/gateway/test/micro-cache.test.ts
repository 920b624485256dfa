import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MicroCache, microCacheKey } from '../src/micro-cache';

/** A real upstream answer: a local server's response to one GET, read by `keep` as the proxy would pipe it. */
async function upstreamAnswer(body: string, headers: Record<string, string>, status = 200): Promise<{ res: IncomingMessage; close: () => void }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const res = await new Promise<IncomingMessage>((resolve) => http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, resolve));
  return { res, close: () => server.close() };
}

/** What the cache answers a GET with (null when it does not answer), through a real server. */
async function askCache(cache: MicroCache, key: string, ifNoneMatch?: string): Promise<{ status: number; etag: string | undefined; body: string } | null> {
  let answered = false;
  const server = http.createServer((req, res) => {
    answered = cache.answer('catalog', key, req, res);
    if (!answered) {
      res.statusCode = 599;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {} });
    const body = await res.text();
    return answered ? { status: res.status, etag: res.headers.get('etag') ?? undefined, body } : null;
  } finally {
    server.close();
  }
}

const finished = (res: IncomingMessage) => new Promise((resolve) => res.on('end', resolve));
const json = { etag: '"v1"', 'content-type': 'application/json; charset=utf-8' };

describe('the gateway micro-cache', () => {
  it('keys a query by its parameters in a stable order and one encoding', () => {
    expect(microCacheKey('/api/listings?sort=newest&limit=20')).toBe(microCacheKey('/api/listings?limit=20&sort=newest'));
    expect(microCacheKey('/api/listings?q=a%20b')).toBe(microCacheKey('/api/listings?q=a+b'));
    expect(microCacheKey('/api/listings?game=a&game=b')).not.toBe(microCacheKey('/api/listings?game=b&game=a'));
    expect(microCacheKey('/api/listings')).toBe('/api/listings');
  });

  it('answers a kept 200 with its tag, and 304 to a client holding it', async () => {
    const cache = new MicroCache(10_000);
    const { res, close } = await upstreamAnswer('{"items":[]}', json);
    cache.keep('catalog', 'k', res, cache.generation('catalog'));
    res.resume();
    await finished(res);
    close();
    expect(await askCache(cache, 'k')).toEqual({ status: 200, etag: '"v1"', body: '{"items":[]}' });
    expect(await askCache(cache, 'k', '"v1"')).toEqual({ status: 304, etag: '"v1"', body: '' });
    expect(await askCache(cache, 'other')).toBeNull();
  });

  it('keeps no answer without a tag or other than 200, nor one to a read sent before a write began or ended', async () => {
    const cache = new MicroCache(10_000);
    for (const [headers, status] of [[{ 'content-type': 'application/json' }, 200], [json, 404]] as const) {
      const { res, close } = await upstreamAnswer('{}', headers, status);
      cache.keep('catalog', 'k', res, cache.generation('catalog'));
      res.resume();
      await finished(res);
      close();
      expect(await askCache(cache, 'k')).toBeNull();
    }
    // the read is sent, a write to catalog begins and ends, then the read's (older) answer arrives
    const sentAt = cache.generation('catalog');
    cache.drop('catalog');
    cache.drop('catalog');
    const { res, close } = await upstreamAnswer('{"items":["old"]}', json);
    cache.keep('catalog', 'k', res, sentAt);
    res.resume();
    await finished(res);
    close();
    expect(await askCache(cache, 'k')).toBeNull();
  });

  it('drops what it kept on a write, and lets a kept answer go after its time', async () => {
    // the keeping time runs on this test's clock: a loaded machine's slow steps must not end it early
    let clock = 1_000_000;
    const cache = new MicroCache(50, undefined, () => clock);
    const keep = async () => {
      const { res, close } = await upstreamAnswer('{}', json);
      cache.keep('catalog', 'k', res, cache.generation('catalog'));
      res.resume();
      await finished(res);
      close();
    };
    await keep();
    cache.drop('catalog');
    expect(await askCache(cache, 'k')).toBeNull();
    await keep();
    expect(await askCache(cache, 'k')).not.toBeNull();
    // time passing is the subject: the answer is kept for 50 ms
    clock += 49;
    expect(await askCache(cache, 'k')).not.toBeNull();
    clock += 1;
    expect(await askCache(cache, 'k')).toBeNull();
  });
});
