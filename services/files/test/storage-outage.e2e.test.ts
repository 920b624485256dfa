import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkedFetch, eventually, mintToken, startStack, TINY_PNG as PNG, type Stack } from '@market/testkit';
import { startTestS3, type TestS3 } from './s3-server';

/** How long the bucket stays away: long enough for the SDK's retries and several rounds of requests to meet it. */
const OUTAGE_MS = 10_000;

/**
 * The bucket store going away under a running system and coming back, seen by a client of the
 * gateway (docs/operations/README.md, "File storage unavailable"). The test's own S3 server is
 * stopped, not the shared services, so this is no fault-pass test.
 */
describe('the files bucket unreachable for ~10 s, through the gateway', () => {
  let stack: Stack;
  let s3: TestS3;
  const storageDir = mkdtempSync(path.join(tmpdir(), 'files-outage-'));
  const owner = mintToken('user');

  beforeAll(async () => {
    s3 = await startTestS3();
    stack = await startStack({ services: ['files'], serviceEnv: { files: { FILES_STORAGE_DIR: storageDir, ...s3.env } } });
  });
  afterAll(async () => {
    await stack?.stop();
    await s3?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const fileRows = async () => Number((await stack.services.files!.ctx.db.query('select count(*)::int as n from files'))[0].n);

  async function upload(scene: string) {
    const form = new FormData();
    form.append('scene', scene);
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'pixel.png');
    const res = await checkedFetch(`${stack.url}/api/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${owner}` }, body: form });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { key: string; url: string; code?: string } };
  }

  async function get(url: string, headers: Record<string, string> = {}) {
    const res = await checkedFetch(`${stack.url}${url}`, { headers: { authorization: `Bearer ${owner}`, ...headers } });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it('refuses uploads and uncached reads with 503 STORAGE_UNAVAILABLE, still answers revalidations with 304, half-writes nothing, and recovers', async () => {
    const kept = await Promise.all(['listing', 'handoff'].map(async (scene) => {
      const stored = await upload(scene);
      expect(stored.status).toBe(201);
      const first = await get(stored.body.url);
      expect(first.status).toBe(200);
      return { url: stored.body.url, key: stored.body.key, etag: first.headers.get('etag')! };
    }));
    const rowsBefore = await fileRows();
    const objectsBefore = await s3.keys();

    await s3.stop();
    const downSince = Date.now();
    let rounds = 0;
    // time passing is the subject: every answer during the whole outage is quick and the same
    while (Date.now() - downSince < OUTAGE_MS) {
      const sentAt = Date.now();
      const refused = await upload('dispute');
      expect([refused.status, refused.body.code]).toEqual([503, 'STORAGE_UNAVAILABLE']);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get('retry-after')).toBe('5');

      for (const { url, etag } of kept) {
        // a client's copy (the browser's, a CDN's) is revalidated from the database alone
        const fresh = await get(url, { 'if-none-match': etag });
        expect([fresh.status, fresh.headers.get('etag'), fresh.bytes.length]).toEqual([304, etag, 0]);
        // a client without one meets the outage, and nothing may cache that answer
        const uncached = await get(url);
        expect(uncached.status).toBe(503);
        expect(JSON.parse(uncached.bytes.toString()).code).toBe('STORAGE_UNAVAILABLE');
        expect(uncached.headers.get('etag')).toBeNull();
        expect(uncached.headers.get('cache-control')).toBe('no-store');
      }
      // bounded by the SDK's timeouts and retries, never the gateway's proxy timeout
      expect(Date.now() - sentAt).toBeLessThan(5_000);
      rounds += 1;
    }
    expect(rounds).toBeGreaterThan(1);
    expect(await fileRows()).toBe(rowsBefore);
    expect(readdirSync(path.join(storageDir, '.incoming'))).toEqual([]);

    await s3.start();
    expect(await s3.keys()).toEqual(objectsBefore);
    const again = await eventually(() => upload('dispute'), (res) => res.status === 201);
    expect((await get(again.body.url)).bytes.equals(PNG)).toBe(true);
    for (const { url } of kept) expect((await get(url)).bytes.equals(PNG)).toBe(true);
    expect(await s3.keys()).toEqual([...objectsBefore, again.body.key].sort());
  });

  it('answers within FILES_S3_TIMEOUT_MS and its retries when the bucket takes connections but never answers', async () => {
    const stored = await upload('listing');
    const first = await get(stored.body.url);
    const etag = first.headers.get('etag')!;
    const rowsBefore = await fileRows();

    s3.stall(true);
    try {
      let sentAt = Date.now();
      const refused = await upload('dispute');
      expect([refused.status, refused.body.code]).toEqual([503, 'STORAGE_UNAVAILABLE']);
      // an upload is tried once: one timeout (2 s here), not the gateway's 30 s
      expect(Date.now() - sentAt).toBeLessThan(4_000);

      sentAt = Date.now();
      expect((await get(stored.body.url, { 'if-none-match': etag })).status).toBe(304);
      expect(Date.now() - sentAt).toBeLessThan(1_000);

      sentAt = Date.now();
      const uncached = await get(stored.body.url);
      expect(uncached.status).toBe(503);
      // a read is tried 3 times
      expect(Date.now() - sentAt).toBeLessThan(10_000);
    } finally {
      s3.stall(false);
    }
    expect(await fileRows()).toBe(rowsBefore);
    const again = await eventually(() => upload('dispute'), (res) => res.status === 201);
    expect((await get(again.body.url)).bytes.equals(PNG)).toBe(true);
  });
});
