import { get } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attachFiles } from '@market/contracts';
import { checkAnswer, checkedFetch, api, internalClientAs, mintToken, newAdmin, startStack, type Caller, type Stack } from '@market/testkit';
import { v7 as uuidv7 } from 'uuid';
import { JPEG, PNG, type Part } from './samples';

const userToken = (sub: string) => mintToken('user', sub);

/**
 * What only the whole path shows: a multipart body and a file's bytes pass the gateway whole, the
 * gateway's token checks decide who reaches which route, a revalidation a browser makes is answered
 * 304 through it, and its internal routes are not served to the outside. What the files service
 * decides alone is proven in test/component/files.test.ts (ADR 0058).
 */
describe('files through the gateway', () => {
  let stack: Stack;
  let backOffice: Caller;
  let client: ReturnType<typeof api>;
  let storageDir: string;
  const owner = uuidv7();
  const partyOfOrder = uuidv7();

  async function upload(token: string | undefined, file: Part, scene: string) {
    const form = new FormData();
    form.append('scene', scene);
    form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.filename);
    const res = await checkedFetch(`${stack.url}/api/files/upload`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {}, body: form });
    return { status: res.status, body: (await res.json()) as any };
  }

  async function read(key: string, token?: string, admin = false) {
    const prefix = admin ? '/api/admin/files/object' : '/api/files/object';
    const res = await checkedFetch(`${stack.url}${prefix}?key=${encodeURIComponent(key)}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  /** A conditional read made with node:http, which sends only the headers given (fetch() adds `Cache-Control: no-cache`). */
  function revalidate(key: string, headers: Record<string, string>) {
    return new Promise<{ status: number; etag: string | undefined; length: number }>((resolve, reject) => {
      const url = `${stack.url}/api/files/object?key=${encodeURIComponent(key)}`;
      get(url, { headers }, (res) => {
        let length = 0;
        res.on('data', (chunk: Buffer) => (length += chunk.length));
        res.on('end', () => {
          const answer = { status: res.statusCode!, etag: res.headers.etag, length };
          checkAnswer({ method: 'GET', url, status: answer.status, contentType: res.headers['content-type'] ?? null, text: undefined }).then(
            () => resolve(answer),
            reject,
          );
        });
      }).on('error', reject);
    });
  }

  beforeAll(async () => {
    storageDir = mkdtempSync(path.join(tmpdir(), 'files-test-'));
    stack = await startStack({ services: ['files', 'admin'], serviceEnv: { files: { FILES_STORAGE_DIR: storageDir } } });
    client = api(stack.url);
    backOffice = await newAdmin(stack, ['customer_service']);
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('takes an upload through the gateway and gives the same bytes back, revalidated to 304 with or without no-cache', async () => {
    const up = await upload(userToken(owner), { bytes: PNG, filename: 'me.png', type: 'image/png' }, 'avatar');
    expect(up.status).toBe(201);
    const res = await read(up.body.key);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await revalidate(up.body.key, { 'if-none-match': etag })).toEqual({ status: 304, etag, length: 0 });
    // `no-cache` asks caches to revalidate with the origin; the origin validating answers 304 all the same (ADR 0044)
    expect(await revalidate(up.body.key, { 'if-none-match': etag, 'cache-control': 'no-cache' })).toEqual({ status: 304, etag, length: 0 });
    expect((await revalidate(up.body.key, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('lets each token reach only its routes: no token or an admin token cannot upload, a user token cannot read as the back office', async () => {
    const png = { bytes: PNG, filename: 'a.png' };
    expect((await upload(undefined, png, 'listing')).status).toBe(401);
    expect((await upload(backOffice.token, png, 'listing')).status).toBe(401);
    const key = (await upload(userToken(owner), { bytes: JPEG, filename: 'evidence.jpg' }, 'handoff')).body.key;
    expect((await read(key, userToken(owner), true)).status).toBe(401);
    const res = await read(key, backOffice.token, true);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(JPEG)).toBe(true);
  });

  it('lets a party an order attached a private file to read it with their own token', async () => {
    const key = (await upload(userToken(owner), { bytes: JPEG, filename: 'evidence.jpg' }, 'handoff')).body.key;
    expect((await read(key, userToken(partyOfOrder))).status).toBe(404);
    await internalClientAs(stack, 'orders').call(attachFiles, { body: { keys: [key], biz_type: 'order', biz_id: uuidv7(), reader_ids: [partyOfOrder] } });
    expect((await read(key, userToken(partyOfOrder))).status).toBe(200);
  });

  it('does not serve the internal routes to the outside', async () => {
    const key = (await upload(userToken(owner), { bytes: PNG, filename: 'a.png' }, 'listing')).body.key;
    expect((await client.get(`/internal/files/meta?key=${encodeURIComponent(key)}`)).status).toBe(404);
  });
});
