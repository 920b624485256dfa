import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkedFetch, mintToken, startStack, TINY_PNG as PNG, type Stack } from '@market/testkit';

/**
 * A client revalidating a stored file through the gateway, with `fetch()` as a browser or the SDK
 * would: fetch adds `Cache-Control: no-cache` to any request with `If-None-Match`, which used to
 * get the whole file again. The pipeline's one conditional rule answers 304 (ADR 0044).
 */
describe('a conditional GET of a stored file through the gateway', () => {
  let stack: Stack;
  const storageDir = mkdtempSync(path.join(tmpdir(), 'market-conditional-files-'));
  const owner = mintToken('user');

  beforeAll(async () => {
    stack = await startStack({ services: ['files'], serviceEnv: { files: { FILES_STORAGE_DIR: storageDir } } });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  async function upload(scene: string): Promise<string> {
    const form = new FormData();
    form.append('scene', scene);
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'pixel.png');
    const res = await checkedFetch(`${stack.url}/api/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${owner}` }, body: form });
    expect(res.status).toBe(201);
    return ((await res.json()) as { url: string }).url;
  }

  async function get(url: string, headers: Record<string, string> = {}) {
    const res = await checkedFetch(`${stack.url}${url}`, { headers: { authorization: `Bearer ${owner}`, ...headers } });
    return { status: res.status, etag: res.headers.get('etag'), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it.each(['listing', 'handoff'])('answers 304 with no body and the same ETag to the tag a client holds, 200 to a stale one (%s file)', async (scene) => {
    const url = await upload(scene);
    const first = await get(url);
    expect(first.status).toBe(200);
    expect(first.bytes.equals(PNG)).toBe(true);
    expect(first.etag).toMatch(/^"[0-9a-f]{64}"$/);

    const again = await get(url, { 'if-none-match': first.etag! });
    expect(again).toEqual({ status: 304, etag: first.etag, bytes: Buffer.alloc(0) });
    expect((await get(url, { 'if-none-match': `"stale", W/${first.etag}` })).status).toBe(304);

    const stale = await get(url, { 'if-none-match': '"0000"' });
    expect(stale.status).toBe(200);
    expect(stale.etag).toBe(first.etag);
    expect(stale.bytes.equals(PNG)).toBe(true);
  });
});
